package matchmaking

import "github.com/redis/go-redis/v9"

// The scripts build their keys from ARGV[1], the prefix ending in the hash
// tag {mm}: every matchmaking key shares one Redis Cluster slot, which lets
// one script remove a player's tickets from all their queues atomically.
//
// Every script may run twice for one call: the client sends a command again
// when its reply does not come within the read timeout (a busy machine, a
// slow network), although Redis may have run it already. So each script
// recognises its own earlier run and answers as that run did: a claim
// whose pair id is already on both tickets reports the pair claimed (else
// the pair would be taken out of the queue with no match ever created for
// it), an enqueue that finds its own ticket does not mark it replaced. A
// cancel run twice reports the ticket gone, which Cancel's callers take as
// what it is: no longer queued.
//
// Ticket value in t:<queue>: "<ticket id>|<enqueued ms>|<expires ms>|<name>".

// enqueueScript adds or replaces a player's ticket in a queue.
// ARGV: prefix, queue, player, rating, ticket id, value, result ttl ms.
// Returns "" or, without queueing, the player's busy mark (busy.go). Run
// again for the same ticket, it returns "" and changes nothing: the ticket
// is there, or it has a result already (paired, replaced...).
var enqueueScript = redis.NewScript(`
local pre, qk, player, id = ARGV[1], ARGV[2], ARGV[3], ARGV[5]
local t = pre .. 't:' .. qk
local old = redis.call('HGET', t, player)
if old and string.match(old, '^([^|]*)|') == id then return '' end
if redis.call('EXISTS', pre .. 'res:' .. id) == 1 then return '' end
local busy = redis.call('GET', pre .. 'busy:' .. player)
if busy then return busy end
if old then
  local oid = string.match(old, '^([^|]*)|')
  redis.call('SET', pre .. 'res:' .. oid, 'replaced', 'PX', ARGV[7])
  redis.call('PUBLISH', pre .. 'events', oid)
end
redis.call('HSET', t, player, ARGV[6])
redis.call('ZADD', pre .. 'q:' .. qk, ARGV[4], player)
redis.call('SADD', pre .. 'pq:' .. player, qk)
redis.call('SADD', pre .. 'queues', qk)
return ''
`)

// heartbeatScript moves a ticket's expiry. ARGV: prefix, queue, player,
// ticket id, new value. Returns 0 when the ticket is gone.
var heartbeatScript = redis.NewScript(`
local t = ARGV[1] .. 't:' .. ARGV[2]
local v = redis.call('HGET', t, ARGV[3])
if not v or string.match(v, '^([^|]*)|') ~= ARGV[4] then return 0 end
redis.call('HSET', t, ARGV[3], ARGV[5])
return 1
`)

// cancelScript removes a ticket. ARGV: prefix, queue, player, ticket id.
// Returns 0 when the ticket is gone (paired, replaced or expired).
var cancelScript = redis.NewScript(`
local pre, qk, player = ARGV[1], ARGV[2], ARGV[3]
local t = pre .. 't:' .. qk
local v = redis.call('HGET', t, player)
if not v or string.match(v, '^([^|]*)|') ~= ARGV[4] then return 0 end
redis.call('HDEL', t, player)
redis.call('ZREM', pre .. 'q:' .. qk, player)
redis.call('SREM', pre .. 'pq:' .. player, qk)
return 1
`)

// claimScript claims pairs found by a wave, each only if both tickets are
// still there, unchanged and alive; a claimed player's tickets in every
// queue go at once, so nobody is ever in two pairs, and both are marked
// busy (busy.go); a ticket whose player is busy with another match (a room
// or a bot game started meanwhile) is dropped instead. It also drops the
// expired tickets the wave saw.
// ARGV: prefix, now ms, result ttl ms, queue, pending ttl ms, n pairs, then per pair
// (playerA, ticketA, playerB, ticketB, pairID), then m expired, then per
// expired ticket (player, ticket). Returns the 1-based indexes of the
// claimed pairs: also those an earlier run of this same call claimed
// (both tickets' results name its pair id), so that a retried call still
// creates their matches.
var claimScript = redis.NewScript(`
local pre, now, ttl, qk = ARGV[1], tonumber(ARGV[2]), ARGV[3], ARGV[4]
local t = pre .. 't:' .. qk
local function ticket(tk, player)
  local v = redis.call('HGET', tk, player)
  if not v then return nil, 0 end
  local id, exp = string.match(v, '^([^|]*)|[^|]*|([^|]*)|')
  return id, tonumber(exp)
end
local function drop(player)
  local pq = pre .. 'pq:' .. player
  for _, q2 in ipairs(redis.call('SMEMBERS', pq)) do
    local t2 = pre .. 't:' .. q2
    if q2 ~= qk then
      local v = redis.call('HGET', t2, player)
      if v then
        local id2 = string.match(v, '^([^|]*)|')
        redis.call('SET', pre .. 'res:' .. id2, 'elsewhere', 'PX', ttl)
        redis.call('PUBLISH', pre .. 'events', id2)
      end
    end
    redis.call('ZREM', pre .. 'q:' .. q2, player)
    redis.call('HDEL', t2, player)
  end
  redis.call('DEL', pq)
end
local function busy(player, id)
  local b = redis.call('GET', pre .. 'busy:' .. player)
  if not b then return false end
  if id then
    redis.call('SET', pre .. 'res:' .. id, 'busy|' .. player .. '|' .. b, 'PX', ttl)
    redis.call('PUBLISH', pre .. 'events', id)
    redis.call('HDEL', t, player)
    redis.call('ZREM', pre .. 'q:' .. qk, player)
    redis.call('SREM', pre .. 'pq:' .. player, qk)
  end
  return true
end
local claimed = {}
local i = 7
for k = 1, tonumber(ARGV[6]) do
  local a, ta, b, tb, pid = ARGV[i], ARGV[i+1], ARGV[i+2], ARGV[i+3], ARGV[i+4]
  i = i + 5
  if redis.call('GET', pre .. 'res:' .. ta) == 'paired|' .. pid and
     redis.call('GET', pre .. 'res:' .. tb) == 'paired|' .. pid then
    claimed[#claimed + 1] = k
  else
    local ida, expa = ticket(t, a)
    local idb, expb = ticket(t, b)
    local ok = ida == ta and idb == tb and expa >= now and expb >= now
    if ok then
      local ba = busy(a, ida)
      local bb = busy(b, idb)
      ok = not ba and not bb
    end
    if ok then
      drop(a)
      drop(b)
      redis.call('SET', pre .. 'busy:' .. a, 'pending|pair-' .. pid, 'PX', ARGV[5])
      redis.call('SET', pre .. 'busy:' .. b, 'pending|pair-' .. pid, 'PX', ARGV[5])
      redis.call('SET', pre .. 'res:' .. ta, 'paired|' .. pid, 'PX', ttl)
      redis.call('SET', pre .. 'res:' .. tb, 'paired|' .. pid, 'PX', ttl)
      claimed[#claimed + 1] = k
    end
  end
end
local m = tonumber(ARGV[i])
i = i + 1
for k = 1, m do
  local p, tid = ARGV[i], ARGV[i+1]
  i = i + 2
  local id, exp = ticket(t, p)
  if id == tid and exp < now then
    redis.call('HDEL', t, p)
    redis.call('ZREM', pre .. 'q:' .. qk, p)
    redis.call('SREM', pre .. 'pq:' .. p, qk)
    redis.call('SET', pre .. 'res:' .. tid, 'expired', 'PX', ttl)
    redis.call('PUBLISH', pre .. 'events', tid)
  end
end
if redis.call('ZCARD', pre .. 'q:' .. qk) == 0 then
  redis.call('SREM', pre .. 'queues', qk)
end
return claimed
`)

// route is the KEYS of every script: none reads it (they build their keys
// from the prefix), but on Redis Cluster a script goes to the primary of
// its first key's slot, the slot of {mm}.
func (m *Matchmaker) route() []string { return []string{m.pre + "queues"} }
