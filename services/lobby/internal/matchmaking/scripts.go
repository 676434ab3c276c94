package matchmaking

import "github.com/redis/go-redis/v9"

// Keys. A queue's keys carry the queue's hash tag and a player's keys the
// player's, so that on Redis Cluster the queues and the players spread
// over the primaries (Prefix is the lobby's, "tabuleiro:lobby:"):
//
//	Prefix{mmq:<queue>}:t            hash player → "<ticket id>|<enqueued ms>|<expires ms>|<name>"
//	Prefix{mmq:<queue>}:q            sorted set player → rating
//	Prefix{mmq:<queue>}:taken:<n>    hash ticket → the pair id a claim took it for, in the n-th
//	                                 period of takenTTL (a retried claim's proof; two live at a time)
//	Prefix{mmp:<player>}:busy        the player's busy mark (busy.go)
//	Prefix{mmp:<player>}:pq          hash queue → the player's ticket id there
//	Prefix{mmp:<player>}:res:<id>    a ticket's result
//	Prefix{mmp:<player>}:tc:<id>     a ticket's trace context (trace.go)
//	Prefix{mm}:open                  the queues that may hold tickets (waves read it)
//	Prefix{mm}:events                Pub/Sub: the id of a ticket whose result was written
//
// No script touches two tags, so the steps of a pairing that span a queue
// and two players run one after the other, and the player's busy mark,
// set only where it is absent (markScript), decides which of two claims
// of one player wins: the loser puts the other ticket back in its queue.
//
// Every script may run twice for one call: the client sends a command again
// when its reply does not come within the read timeout (a busy machine, a
// slow network), although Redis may have run it already. So each script
// recognises its own earlier run and answers as that run did: a claim
// whose pair id is already on both tickets reports the pair claimed (else
// the pair would be taken out of the queue with no match ever created for
// it), an enqueue that finds its own ticket does not mark it replaced, a
// mark already set for the same reference holds. A cancel run twice reports
// the ticket gone, which Cancel's callers take as what it is: no longer
// queued.

// registerScript is an enqueue's first step, on the player's tag: it
// records the ticket as the player's in its queue, marking the ticket it
// replaces, unless the player is busy.
// KEYS: busy, pq. ARGV: queue, ticket id, res prefix, result ttl ms, events channel.
// Returns "" (go on: queue the ticket), "done" (an earlier run of this call
// queued it and it has a result already: do not queue it again) or the
// player's busy mark.
var registerScript = redis.NewScript(`
local qk, id, res = ARGV[1], ARGV[2], ARGV[3]
local old = redis.call('HGET', KEYS[2], qk)
if old == id then return '' end
if redis.call('EXISTS', res .. id) == 1 then return 'done' end
local busy = redis.call('GET', KEYS[1])
if busy then return busy end
if old then
  redis.call('SET', res .. old, 'replaced', 'PX', ARGV[4])
  redis.call('PUBLISH', ARGV[5], old)
end
redis.call('HSET', KEYS[2], qk, id)
return ''
`)

// queueScript is an enqueue's second step, on the queue's tag: the ticket
// goes in (replacing the player's older one there).
// KEYS: t, q. ARGV: player, rating, value. Returns the queue's size: 1 when
// it was empty, which the caller then lists (dropQueue).
var queueScript = redis.NewScript(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
return redis.call('ZCARD', KEYS[2])
`)

// heartbeatScript moves a ticket's expiry. KEYS: t. ARGV: player, ticket
// id, new value. Returns 0 when the ticket is gone.
var heartbeatScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v or string.match(v, '^([^|]*)|') ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
`)

// unqueueScript takes a ticket out of its queue. KEYS: t, q. ARGV: player,
// ticket id. Returns 0 when the ticket is gone (paired, replaced, expired
// or withdrawn).
var unqueueScript = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], ARGV[1])
if not v or string.match(v, '^([^|]*)|') ~= ARGV[2] then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[1])
return 1
`)

// takeScript is a wave's claim, on the queue's tag: it takes out of the
// queue the pairs found whose tickets are both still there, unchanged and
// alive, and the expired tickets the wave saw.
// KEYS: t, q. ARGV: taken prefix, now ms, taken ttl ms, n pairs, then per
// pair (playerA, ticketA, playerB, ticketB, pairID), then m expired, then per
// expired ticket (player, ticket). Returns {claimed, expired}: the 1-based
// indexes of the pairs taken (also those an earlier run of this same call
// took: the taken hash of this period or the last names its pair id for
// both tickets) and of the expired tickets removed.
var takeScript = redis.NewScript(`
local now, ttl = tonumber(ARGV[2]), tonumber(ARGV[3])
local period = math.floor(now / ttl)
local taken, before = ARGV[1] .. period, ARGV[1] .. (period - 1)
local function proof(key, ta, tb, pid)
  local got = redis.call('HMGET', key, ta, tb)
  return got[1] == pid and got[2] == pid
end
local function ticket(player)
  local v = redis.call('HGET', KEYS[1], player)
  if not v then return nil, 0 end
  local id, exp = string.match(v, '^([^|]*)|[^|]*|([^|]*)|')
  return id, tonumber(exp)
end
local function remove(player)
  redis.call('HDEL', KEYS[1], player)
  redis.call('ZREM', KEYS[2], player)
end
local claimed, expired = {}, {}
local i = 5
for k = 1, tonumber(ARGV[4]) do
  local a, ta, b, tb, pid = ARGV[i], ARGV[i+1], ARGV[i+2], ARGV[i+3], ARGV[i+4]
  i = i + 5
  local ida, expa = ticket(a)
  local idb, expb = ticket(b)
  if ida == ta and idb == tb and expa >= now and expb >= now then
    remove(a)
    remove(b)
    redis.call('HSET', taken, ta, pid, tb, pid)
    redis.call('PEXPIRE', taken, 2 * ttl)
    claimed[#claimed + 1] = k
  elseif proof(taken, ta, tb, pid) or proof(before, ta, tb, pid) then
    claimed[#claimed + 1] = k
  end
end
local m = tonumber(ARGV[i])
i = i + 1
for k = 1, m do
  local p, tid = ARGV[i], ARGV[i+1]
  i = i + 2
  local id, exp = ticket(p)
  if id == tid and exp < now then
    remove(p)
    expired[#expired + 1] = k
  end
end
return {claimed, expired}
`)

// restoreScript puts back a ticket a claim took whose partner turned out
// busy, unless the player has queued another ticket there since.
// KEYS: t, q. ARGV: player, rating, value. Returns the queue's size once
// put back (1: list the queue), 0 when not put back.
var restoreScript = redis.NewScript(`
if redis.call('HSETNX', KEYS[1], ARGV[1], ARGV[3]) == 1 then
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[1])
  return redis.call('ZCARD', KEYS[2])
end
return 0
`)

// markScript marks a player busy for ref, unless they are busy with
// something else. KEYS: busy. ARGV: mark ("pending|<ref>"), ttl ms.
// Returns "" or the other mark.
var markScript = redis.NewScript(`
local b = redis.call('GET', KEYS[1])
if b and b ~= ARGV[1] then return b end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return ''
`)

// withdrawScript ends a player's tickets once they are marked busy: the
// ticket a pairing took gets its result, and so does a newer ticket of
// theirs in the same queue (one that replaced it after the pairing took it:
// its owner watches that one now), every other one of theirs the withdrawn
// result, and the player holds no ticket any more.
// KEYS: pq. ARGV: res prefix, result ttl ms, events channel, the ticket
// taken ("" for none), its result, the others' result, its queue. Returns
// the others as queue, ticket, queue, ticket...: still to take out of their
// queues.
var withdrawScript = redis.NewScript(`
local res, ttl, ch = ARGV[1], ARGV[2], ARGV[3]
local others = {}
local pq = redis.call('HGETALL', KEYS[1])
for j = 1, #pq, 2 do
  local q, id = pq[j], pq[j+1]
  if id ~= ARGV[4] then
    local r = ARGV[6]
    if q == ARGV[7] then r = ARGV[5] end
    redis.call('SET', res .. id, r, 'PX', ttl)
    redis.call('PUBLISH', ch, id)
    others[#others + 1] = q
    others[#others + 1] = id
  end
end
redis.call('DEL', KEYS[1])
if ARGV[4] ~= '' then
  redis.call('SET', res .. ARGV[4], ARGV[5], 'PX', ttl)
  redis.call('PUBLISH', ch, ARGV[4])
end
return others
`)

// endTicketScript ends one ticket of a player: it is no longer theirs in
// its queue and, with a result, gets it unless it has one already (a
// pairing in another queue may have withdrawn it first).
// KEYS: pq. ARGV: queue, ticket id, res prefix, result ("" for none),
// result ttl ms, events channel.
var endTicketScript = redis.NewScript(`
if redis.call('HGET', KEYS[1], ARGV[1]) == ARGV[2] then redis.call('HDEL', KEYS[1], ARGV[1]) end
if ARGV[4] ~= '' and redis.call('SET', ARGV[3] .. ARGV[2], ARGV[4], 'NX', 'PX', ARGV[5]) then
  redis.call('PUBLISH', ARGV[6], ARGV[2])
end
return 1
`)

// swapScript replaces a key's value if it still holds the expected one:
// KEYS: key; ARGV: expected, new value ("" deletes), ttl ms.
var swapScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then redis.call('DEL', KEYS[1]) else redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3]) end
return 1
`)

// Key names (see the top of this file).

func (m *Matchmaker) queueKey(qk, what string) string {
	return m.cfg.Prefix + "{mmq:" + qk + "}:" + what
}

func (m *Matchmaker) playerKey(player, what string) string {
	return m.cfg.Prefix + "{mmp:" + player + "}:" + what
}

func (m *Matchmaker) resPrefix(player string) string { return m.playerKey(player, "res:") }

func (m *Matchmaker) queuesKey() string { return m.cfg.Prefix + "{mm}:open" }

func (m *Matchmaker) eventsChannel() string { return m.cfg.Prefix + "{mm}:events" }

// takenTTL is the period of a claim's taken hashes, in ms: a retry of the
// claim's script comes within it, and the hashes of this period and the
// last are read.
const takenTTL = 30_000
