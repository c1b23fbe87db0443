-- Records a revocation and announces it on the revocation stream, in one atomic step: the
-- hash is what every consume checks, the stream (each entry numbered by the sequence) is what
-- every Blindfold follows, so a missed entry shows as a gap in the numbers.
-- KEYS: 1 the revocation hash, 2 the sequence number, 3 the stream.
-- ARGV: 1 field (jti:ID, kid:KID or task:ID), 2 version for a task ('' otherwise),
--       3 keep until (s), 4 most entries the stream keeps.
-- A field already revoked keeps the later keep-until and, for a task, the higher version.
-- Returns the revocation's sequence number.
local keep = tonumber(ARGV[3])
local old = redis.call('HGET', KEYS[1], ARGV[1])
local value
if ARGV[2] ~= '' then
  local version = tonumber(ARGV[2])
  if old then
    local v, k = string.match(old, '^(%d+) (%d+)$')
    version = math.max(version, tonumber(v))
    keep = math.max(keep, tonumber(k))
  end
  value = string.format('%d %d', version, keep)
else
  if old then
    keep = math.max(keep, tonumber(string.match(old, '(%d+)$')))
  end
  value = string.format('%d', keep)
end
redis.call('HSET', KEYS[1], ARGV[1], value)
local seq = redis.call('INCR', KEYS[2])
redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], '*', 'seq', seq, 'field', ARGV[1], 'value', value)
return seq
