package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/match/internal/match"
)

// Presence: a connected seat's lease is a member "id|seat|epoch" of one
// sorted set scored by its expiry (unix ms), swept by every instance; a
// match's spectators are counted per instance in its hash (watchersKey),
// each count with its expiry, so a dead instance's watchers stop counting
// by themselves.

// RenewLeases implements match.Presence: ZADD XX, so a lease that a
// sweeper has already handled (removed) is not brought back.
func (s *Store) RenewLeases(ctx context.Context, leases []match.Lease, until int64) error {
	members := make([]redis.Z, len(leases))
	for i, l := range leases {
		members[i] = redis.Z{Score: float64(until), Member: l.String()}
	}
	if err := s.rdb.ZAddXX(ctx, s.leasesKey(), members...).Err(); err != nil {
		return fmt.Errorf("renew leases: %w", err)
	}
	return nil
}

// DropLease implements match.Presence.
func (s *Store) DropLease(ctx context.Context, l match.Lease) error {
	return s.rdb.ZRem(ctx, s.leasesKey(), l.String()).Err()
}

// ClaimLease implements match.Presence with the deadlines' claim script:
// the lease's expiry moves to until in the step that checks it lapsed.
func (s *Store) ClaimLease(ctx context.Context, l match.Lease, now, until int64) (bool, error) {
	n, err := claimScript.Run(ctx, s.rdb, []string{s.leasesKey()}, l.String(), now, until).Int()
	return n == 1, err
}

// Watch implements match.Presence: the instance's count and when it
// lapses, as two fields of the match's hash of spectators (see
// watchersKey), which expires a minute after its last renewal.
func (s *Store) Watch(ctx context.Context, ws []match.Watchers, until int64) error {
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, w := range ws {
			k := s.watchersKey(w.MatchID)
			if w.N <= 0 {
				p.HDel(ctx, k, w.Instance, w.Instance+untilSuffix)
				continue
			}
			p.HSet(ctx, k, w.Instance, w.N, w.Instance+untilSuffix, until)
			p.PExpire(ctx, k, time.Minute)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

// untilSuffix names the field of an instance's count's lapse time.
const untilSuffix = ":t"

// AddWatcher implements match.Presence.
func (s *Store) AddWatcher(ctx context.Context, id, instance string, delta int, until int64) error {
	k := s.watchersKey(id)
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		p.HIncrBy(ctx, k, instance, int64(delta))
		p.HSet(ctx, k, instance+untilSuffix, until)
		p.PExpire(ctx, k, time.Minute)
		return nil
	})
	if err != nil {
		return fmt.Errorf("count a watcher: %w", err)
	}
	return nil
}

// Spectators implements match.Presence: the counts of the instances whose
// renewal has not lapsed.
func (s *Store) Spectators(ctx context.Context, ids []string, now int64) ([]int, error) {
	cmds := make([]*redis.MapStringStringCmd, len(ids))
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, id := range ids {
			cmds[i] = p.HGetAll(ctx, s.watchersKey(id))
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("count spectators: %w", err)
	}
	out := make([]int, len(ids))
	for i, c := range cmds {
		for f, v := range c.Val() {
			if strings.HasSuffix(f, untilSuffix) {
				continue
			}
			until, _ := strconv.ParseInt(c.Val()[f+untilSuffix], 10, 64)
			if n, _ := strconv.Atoi(v); until > now && n > 0 {
				out[i] += n
			}
		}
	}
	return out, nil
}
