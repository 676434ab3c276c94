package matchmaking

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/lobby/internal/lobby"
)

// One live match per player. Every way into a match — a queue pairing, a
// room filling, a bot game — first marks its players "busy" in Redis under
// {mm}:busy:<player>, atomically with removing all their tickets; a player
// already marked cannot be queued, paired, seated or given a bot. The mark
// is "pending|<ref>" while the match is being created (it lasts PendingTTL,
// in case the creating instance dies) and "match|<id>" once it exists
// (BusyTTL). A "match|" mark whose match LiveMatches no longer lists for
// the player has ended and is cleared on the spot.

// Reserve marks players as entering the match being created under ref
// (the match request id) and withdraws their tickets in every queue, whose
// Watch ends with lobby.ErrReplaced. It fails with a *lobby.BusyError when
// one of them is already in another match.
func (m *Matchmaker) Reserve(ctx context.Context, ref string, players ...string) error {
	if m.cfg.ConcurrentMatches {
		return nil
	}
	for attempt := 0; ; attempt++ {
		args := []any{m.pre, ref, m.cfg.PendingTTL.Milliseconds(), m.cfg.ResultTTL.Milliseconds()}
		for _, p := range players {
			args = append(args, p)
		}
		res, err := reserveScript.Run(ctx, m.rdb, m.route(), args...).StringSlice()
		if err != nil {
			return fmt.Errorf("reserve players for %s: %w", ref, err)
		}
		if len(res) == 0 {
			return nil
		}
		cleared, err := m.clearIfEnded(ctx, res[0], res[1])
		if err != nil {
			return err
		}
		// Each player may hold the mark of a match that has ended (marks
		// are cleared lazily): one clear per player, then give up.
		if !cleared || attempt >= len(players) {
			return busyError(res[0], res[1])
		}
	}
}

// Confirm records that the match reserved under ref exists. It runs even
// with ConcurrentMatches, whose Reserve marks nobody: a queue pairing marks
// its players itself (claimScript), and a pending mark left unconfirmed
// would refuse them a new ticket until PendingTTL ran out.
func (m *Matchmaker) Confirm(ctx context.Context, ref, matchID string, players ...string) error {
	for _, pl := range players {
		err := swapScript.Run(ctx, m.rdb, m.route(), m.pre+"busy:"+pl, "pending|"+ref, "match|"+matchID, m.cfg.BusyTTL.Milliseconds()).Err()
		if err != nil {
			return fmt.Errorf("confirm match %s: %w", matchID, err)
		}
	}
	return nil
}

// Release drops the marks of a reservation whose match was not created
// (with ConcurrentMatches too, for the marks of a queue pairing).
func (m *Matchmaker) Release(ctx context.Context, ref string, players ...string) error {
	for _, pl := range players {
		if err := swapScript.Run(ctx, m.rdb, m.route(), m.pre+"busy:"+pl, "pending|"+ref, "", 0).Err(); err != nil {
			return fmt.Errorf("release %s: %w", ref, err)
		}
	}
	return nil
}

// clearIfEnded drops player's "match|<id>" mark when LiveMatches says the
// match is over; it reports whether it did.
func (m *Matchmaker) clearIfEnded(ctx context.Context, player, mark string) (bool, error) {
	id, ok := strings.CutPrefix(mark, "match|")
	if !ok || m.cfg.LiveMatches == nil {
		return false, nil
	}
	// Only the marked match is asked about: one read in its shard, not
	// the player's index in every shard.
	live, err := m.cfg.LiveMatches(ctx, player, id)
	if err != nil {
		return false, fmt.Errorf("list live matches of %s: %w", player, err)
	}
	if slices.Contains(live, id) {
		return false, nil
	}
	if err := swapScript.Run(ctx, m.rdb, m.route(), m.pre+"busy:"+player, mark, "", 0).Err(); err != nil {
		return false, fmt.Errorf("clear ended match of %s: %w", player, err)
	}
	return true, nil
}

func busyError(player, mark string) error {
	_, ref, _ := strings.Cut(mark, "|")
	return &lobby.BusyError{PlayerID: player, Match: ref}
}

// reserveScript marks players busy for ref and withdraws their tickets.
// ARGV: prefix, ref, pending ttl ms, result ttl ms, players... Returns {}
// or {player, mark} of the first player already busy with something else.
var reserveScript = redis.NewScript(`
local pre, ref = ARGV[1], ARGV[2]
for i = 5, #ARGV do
  local b = redis.call('GET', pre .. 'busy:' .. ARGV[i])
  if b and b ~= 'pending|' .. ref then return {ARGV[i], b} end
end
for i = 5, #ARGV do
  local p = ARGV[i]
  redis.call('SET', pre .. 'busy:' .. p, 'pending|' .. ref, 'PX', ARGV[3])
  local pq = pre .. 'pq:' .. p
  for _, q in ipairs(redis.call('SMEMBERS', pq)) do
    local t = pre .. 't:' .. q
    local v = redis.call('HGET', t, p)
    if v then
      local id = string.match(v, '^([^|]*)|')
      redis.call('SET', pre .. 'res:' .. id, 'started', 'PX', ARGV[4])
      redis.call('PUBLISH', pre .. 'events', id)
    end
    redis.call('ZREM', pre .. 'q:' .. q, p)
    redis.call('HDEL', t, p)
  end
  redis.call('DEL', pq)
end
return {}
`)

// swapScript replaces a key's value if it still holds the expected one:
// KEYS none; ARGV: key, expected, new value ("" deletes), ttl ms.
var swapScript = redis.NewScript(`
if redis.call('GET', ARGV[1]) ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('DEL', ARGV[1]) else redis.call('SET', ARGV[1], ARGV[3], 'PX', ARGV[4]) end
return 1
`)
