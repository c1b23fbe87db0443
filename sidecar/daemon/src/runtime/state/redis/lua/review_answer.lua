-- Answers a pending review exactly once across the fleet: taking the item out of the pending
-- set is the step only one answer can make; the answered item, its approving grant and the
-- announcement every Blindfold follows are written in the same atomic step.
-- KEYS: 1 items, 2 pending, 3 tokens (id -> approving grant), 4 the answered-reviews stream.
-- ARGV: 1 id, 2 the answered item's JSON, 3 its status, 4 the grant token ('' for none),
--       5 most entries the stream keeps.
-- Returns 1 when this answer was taken, 0 when the item was no longer pending.
if redis.call('ZREM', KEYS[2], ARGV[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
if ARGV[4] ~= '' then
  redis.call('HSET', KEYS[3], ARGV[1], ARGV[4])
end
redis.call('XADD', KEYS[4], 'MAXLEN', '~', ARGV[5], '*', 'id', ARGV[1], 'status', ARGV[3])
return 1
