-- One check-and-consume of a grant use, atomic in Redis (SPEC §6 step 9): spent uses first
-- (replayed), then any revocation in force (of the grant, of its issuer key, of its task's
-- versions before it), then the use, kept until the grant has expired.
-- KEYS: 1 the grant's use counter, 2 the revocation hash, 3 the revocation sequence number.
-- ARGV: 1 jti, 2 issuer kid, 3 task id, 4 version, 5 uses allowed, 6 keep until (s),
--       7 now (s), 8 "1" for a dry run.
-- Returns {outcome, uses taken, revocation sequence number}.
local uses = tonumber(redis.call('GET', KEYS[1]) or '0')
local seq = tonumber(redis.call('GET', KEYS[3]) or '0')
if uses >= tonumber(ARGV[5]) then
  return {'replayed', uses, seq}
end
local now = tonumber(ARGV[7])
local found = redis.call('HMGET', KEYS[2], 'jti:' .. ARGV[1], 'kid:' .. ARGV[2], 'task:' .. ARGV[3])
local function kept(value)
  return value and tonumber(string.match(value, '(%d+)$')) >= now
end
if kept(found[1]) or kept(found[2]) then
  return {'revoked', uses, seq}
end
if kept(found[3]) and tonumber(ARGV[4]) < tonumber(string.match(found[3], '^(%d+) ')) then
  return {'revoked', uses, seq}
end
if ARGV[8] == '1' then
  return {'consumed', uses, seq}
end
uses = redis.call('INCR', KEYS[1])
redis.call('EXPIREAT', KEYS[1], ARGV[6])
return {'consumed', uses, seq}
