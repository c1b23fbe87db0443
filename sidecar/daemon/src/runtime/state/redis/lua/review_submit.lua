-- Holds an action for review, in one atomic step: the action's pending item (or a human's
-- rejection of it) is answered instead of a second item, and the queue's bound is the fleet's.
-- KEYS: 1 items (id -> JSON), 2 pending (sorted set: id by expiry, ms), 3 by action
--       (trajectory NUL fingerprint -> id).
-- ARGV: 1 id, 2 action key, 3 expiry (ms), 4 the item's JSON, 5 most pending items.
-- Returns {'created', id}, {'existing', id}, {'rejected', id} or {'full'}.
local previous = redis.call('HGET', KEYS[3], ARGV[2])
if previous then
  if redis.call('ZSCORE', KEYS[2], previous) then
    return {'existing', previous}
  end
  local json = redis.call('HGET', KEYS[1], previous)
  if json and cjson.decode(json)['status'] == 'rejected' then
    return {'rejected', previous}
  end
end
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[5]) then
  return {'full'}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[1])
return {'created', ARGV[1]}
