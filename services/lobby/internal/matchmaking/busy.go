package matchmaking

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/lobby/internal/lobby"
)

// One live match per player. Every way into a match — a queue pairing, a
// room filling, a bot game — first marks its players "busy" in Redis under
// {mmp:<player>}:busy, set only where it is absent, then withdraws all
// their tickets; a player already marked cannot be queued, paired, seated
// or given a bot. The mark is "pending|<ref>" while the match is being
// created (it lasts PendingTTL, in case the creating instance dies) and
// "match|<id>" once it exists (BusyTTL). A "match|" mark whose match the
// match service no longer lists as live for the player has ended and is
// cleared on the spot.

// Reserve marks players as entering the match being created under ref
// (the match request id) and withdraws their tickets in every queue, whose
// Watch ends with lobby.ErrReplaced. It fails with a *lobby.BusyError when
// one of them is already in another match, and then marks nobody.
func (m *Matchmaker) Reserve(ctx context.Context, ref string, players ...string) error {
	if m.cfg.ConcurrentMatches {
		return nil
	}
	var marked []string
	for _, p := range players {
		other, err := m.mark(ctx, p, "pending|"+ref)
		if err == nil && other == "" {
			marked = append(marked, p)
			continue
		}
		if rerr := m.Release(context.WithoutCancel(ctx), ref, marked...); rerr != nil {
			err = errors.Join(err, rerr)
		}
		if err != nil {
			return fmt.Errorf("reserve players for %s: %w", ref, err)
		}
		return busyError(p, other)
	}
	for _, p := range players {
		if _, err := m.withdraw(ctx, p, "", "", "", "started"); err != nil {
			return fmt.Errorf("reserve players for %s: %w", ref, err)
		}
	}
	return nil
}

// mark sets player's busy mark unless they are busy with something else,
// clearing first a mark of a match that has ended. It returns "" or the
// other mark.
func (m *Matchmaker) mark(ctx context.Context, player, mark string) (string, error) {
	for attempt := 0; ; attempt++ {
		other, err := markScript.Run(ctx, m.rdb, []string{m.playerKey(player, "busy")}, mark, m.cfg.PendingTTL.Milliseconds()).Text()
		if err != nil || other == "" {
			return "", err
		}
		if attempt > 0 {
			return other, nil
		}
		cleared, err := m.clearIfEnded(ctx, player, other)
		if err != nil || !cleared {
			return other, err
		}
	}
}

// withdraw ends player's tickets once they are marked busy: ticket (""
// for none), taken from queue qk, gets result, and so does a newer ticket
// of theirs in qk; every other ticket of theirs gets othersResult. Those
// are taken out of their queues; withdraw returns the ids of the newer
// ones in qk.
func (m *Matchmaker) withdraw(ctx context.Context, player, qk, ticket, result, othersResult string) ([]string, error) {
	others, err := withdrawScript.Run(ctx, m.rdb, []string{m.playerKey(player, "pq")}, m.resPrefix(player),
		m.cfg.ResultTTL.Milliseconds(), m.eventsChannel(), ticket, result, othersResult, qk).StringSlice()
	if err != nil {
		return nil, fmt.Errorf("withdraw the tickets of %s: %w", player, err)
	}
	var newer []string
	for i := 0; i+1 < len(others); i += 2 {
		q, id := others[i], others[i+1]
		if err := unqueueScript.Run(ctx, m.rdb, []string{m.queueKey(q, "t"), m.queueKey(q, "q")}, player, id).Err(); err != nil {
			return nil, fmt.Errorf("withdraw ticket %s of %s: %w", id, player, err)
		}
		if q == qk && qk != "" {
			newer = append(newer, id)
		}
	}
	return newer, nil
}

// Confirm records that the match reserved under ref exists. It runs even
// with ConcurrentMatches, whose Reserve marks nobody: a queue pairing marks
// its players itself (seat), and a pending mark left unconfirmed would
// refuse them a new ticket until PendingTTL ran out.
func (m *Matchmaker) Confirm(ctx context.Context, ref, matchID string, players ...string) error {
	for _, pl := range players {
		err := swapScript.Run(ctx, m.rdb, []string{m.playerKey(pl, "busy")}, "pending|"+ref, "match|"+matchID, m.cfg.BusyTTL.Milliseconds()).Err()
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
		if err := swapScript.Run(ctx, m.rdb, []string{m.playerKey(pl, "busy")}, "pending|"+ref, "", 0).Err(); err != nil {
			return fmt.Errorf("release %s: %w", ref, err)
		}
	}
	return nil
}

// clearIfEnded drops player's "match|<id>" mark when the match service
// says the match is over; it reports whether it did.
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
	if err := swapScript.Run(ctx, m.rdb, []string{m.playerKey(player, "busy")}, mark, "", 0).Err(); err != nil {
		return false, fmt.Errorf("clear ended match of %s: %w", player, err)
	}
	return true, nil
}

func busyError(player, mark string) error {
	_, ref, _ := strings.Cut(mark, "|")
	return &lobby.BusyError{PlayerID: player, Match: ref}
}

// AdoptLegacyMarks copies the busy marks of the version before the hash
// tags per player ({mm}:busy:<player>, one slot) to the players' own keys,
// with what is left of their expiry, so that a player in a match begun
// before an upgrade stays in one live match after it. A mark already set
// in the player's key stays. The old keys are left to expire: instances of
// the old version may still read them during a rolling upgrade. Run at
// start (Run does); it returns how many marks it copied. A scan that finds
// no old mark leaves a note ({mm}:adopted), and later starts skip the scan
// of the keyspace.
func (m *Matchmaker) AdoptLegacyMarks(ctx context.Context) (int, error) {
	old := m.cfg.Prefix + "{mm}:busy:"
	done := m.cfg.Prefix + "{mm}:adopted"
	if n, err := m.rdb.Exists(ctx, done).Result(); err != nil || n > 0 {
		return 0, err
	}
	// Every key of {mm} is in one slot: on a cluster, on the primary
	// serving it.
	var node redis.Cmdable = m.rdb
	if cc, ok := m.rdb.(*redis.ClusterClient); ok {
		c, err := cc.MasterForKey(ctx, old)
		if err != nil {
			return 0, fmt.Errorf("adopt old busy marks: %w", err)
		}
		node = c
	}
	n, seen := 0, 0
	it := node.Scan(ctx, 0, old+"*", 1000).Iterator()
	for it.Next(ctx) {
		key := it.Val()
		seen++
		mark, err := m.rdb.Get(ctx, key).Result()
		ttl, terr := m.rdb.PTTL(ctx, key).Result()
		if errors.Is(err, redis.Nil) || terr != nil || ttl <= 0 {
			continue // expired meanwhile, or kept without expiry by hand
		}
		if err != nil {
			return n, fmt.Errorf("adopt old busy mark %s: %w", key, err)
		}
		ok, err := m.rdb.SetNX(ctx, m.playerKey(strings.TrimPrefix(key, old), "busy"), mark, ttl).Result()
		if err != nil {
			return n, fmt.Errorf("adopt old busy mark %s: %w", key, err)
		}
		if ok {
			n++
		}
	}
	if err := it.Err(); err != nil {
		return n, fmt.Errorf("adopt old busy marks: %w", err)
	}
	if seen == 0 {
		if err := m.rdb.Set(ctx, done, "1", 0).Err(); err != nil {
			return n, fmt.Errorf("adopt old busy marks: %w", err)
		}
	}
	return n, nil
}
