-- Everything a Blindfold needs to catch up, read atomically: the revocations' sequence number,
-- the id of the last entry of each stream it follows (the feed goes on from there) and the hash
-- of revocations in force.
-- KEYS: 1 the revocation hash, 2 the sequence number, 3 the revocation stream, 4 the stream of
-- answered reviews.
-- Returns {sequence number, last revocation id, last review id, {field, value, ...}}.
local function last_id(stream)
  local last = redis.call('XREVRANGE', stream, '+', '-', 'COUNT', 1)
  if #last > 0 then
    return last[1][1]
  end
  return '0-0'
end
local seq = tonumber(redis.call('GET', KEYS[2]) or '0')
return {seq, last_id(KEYS[3]), last_id(KEYS[4]), redis.call('HGETALL', KEYS[1])}
