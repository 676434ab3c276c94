package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/match/internal/match"
)

// Presence: a connected seat's lease is a member "id|seat|epoch" of one
// sorted set scored by its expiry (unix ms), swept by every instance; a
// match's spectators are the members of its own sorted set m:{id}:w scored
// the same way, counted from now on, so a dead instance's watchers stop
// counting by themselves.

// RenewLeases implements match.Presence: ZADD XX, so a lease that a
// sweeper has already handled (removed) is not brought back.
func (s *Store) RenewLeases(ctx context.Context, leases []match.Lease, until int64) error {
	byKey := map[string][]redis.Z{}
	for _, l := range leases {
		k := s.leasesKey(l.MatchID)
		byKey[k] = append(byKey[k], redis.Z{Score: float64(until), Member: l.String()})
	}
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for k, members := range byKey {
			p.ZAddXX(ctx, k, members...)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("renew leases: %w", err)
	}
	return nil
}

// DropLease implements match.Presence.
func (s *Store) DropLease(ctx context.Context, l match.Lease) error {
	return s.rdb.ZRem(ctx, s.leasesKey(l.MatchID), l.String()).Err()
}

// ClaimLease implements match.Presence with the deadlines' claim script:
// the lease's expiry moves to until in the step that checks it lapsed.
func (s *Store) ClaimLease(ctx context.Context, l match.Lease, now, until int64) (bool, error) {
	n, err := claimScript.Run(ctx, s.rdb, []string{s.leasesKey(l.MatchID)}, l.String(), now, until).Int()
	return n == 1, err
}

// Watch implements match.Presence. The watchers' key is deleted with its
// last member; if a dead instance left members behind, it expires a
// minute after its last renewal.
func (s *Store) Watch(ctx context.Context, ws []match.Watcher, until int64) error {
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, w := range ws {
			p.ZAdd(ctx, s.watchersKey(w.MatchID), redis.Z{Score: float64(until), Member: w.ID})
			p.PExpire(ctx, s.watchersKey(w.MatchID), time.Minute)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

// Unwatch implements match.Presence.
func (s *Store) Unwatch(ctx context.Context, w match.Watcher) error {
	return s.rdb.ZRem(ctx, s.watchersKey(w.MatchID), w.ID).Err()
}

// Spectators implements match.Presence.
func (s *Store) Spectators(ctx context.Context, ids []string, now int64) ([]int, error) {
	cmds := make([]*redis.IntCmd, len(ids))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.ZCount(ctx, s.watchersKey(id), strconv.FormatInt(now, 10), "+inf")
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count spectators: %w", err)
	}
	out := make([]int, len(ids))
	for i, c := range cmds {
		out[i] = int(c.Val())
	}
	return out, nil
}
