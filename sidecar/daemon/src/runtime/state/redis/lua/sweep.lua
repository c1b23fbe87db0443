-- Forgets revocations kept until before now (uses expire by themselves: their keys carry the
-- grant's expiry). KEYS: 1 the revocation hash. ARGV: 1 now (s). Returns how many went.
local all = redis.call('HGETALL', KEYS[1])
local now = tonumber(ARGV[1])
local gone = 0
for i = 1, #all, 2 do
  if tonumber(string.match(all[i + 1], '(%d+)$')) < now then
    redis.call('HDEL', KEYS[1], all[i])
    gone = gone + 1
  end
end
return gone
