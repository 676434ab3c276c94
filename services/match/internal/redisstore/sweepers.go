package redisstore

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// The sweeper's role is split by bucket: SweepGroups groups of
// consecutive buckets, each with its own holder (a key holding the
// holder's token, with the role's expiry, in the slot of the group's first
// bucket: on a cluster, on the primary of the group's buckets). Each
// instance asks for its share of the groups, an even split among the
// instances that asked within the role's expiry, so the firing of
// deadlines spreads over the instances, and the groups of an instance that
// stopped asking are taken by the others once they lapse. Versions before
// held one role for every bucket (the key sweeper, which this version
// leaves alone: during a rolling upgrade both sweep, which is harmless,
// each deadline being claimed once).

// SweepGroups is the number of groups. Groups of 4 consecutive buckets
// fall on one primary of a cluster whose slots are split evenly over 2,
// 3, 4, 6 or 12 primaries (redis-cli --cluster create's ranges).
const SweepGroups = 12

// groupOfBucket is bucket b's group; the legacy bucket's is group 0.
func groupOfBucket(b int) int {
	if b == legacy {
		return 0
	}
	return b * SweepGroups / Buckets
}

// groupBuckets are the buckets group g sweeps (on a single Redis, group 0
// has the legacy bucket too); none for a g out of range.
func (s *Store) groupBuckets(g int) []int {
	if g < 0 || g >= SweepGroups {
		return nil
	}
	var bs []int
	if g == 0 && s.cluster == nil {
		bs = append(bs, legacy)
	}
	for b := g * Buckets / SweepGroups; b < (g+1)*Buckets/SweepGroups; b++ {
		bs = append(bs, b)
	}
	return bs
}

// SweepGroups implements match.Store.
func (s *Store) SweepGroups() int { return SweepGroups }

// SweepGroup implements match.Store: the group of match id's bucket.
func (s *Store) SweepGroup(id string) int { return groupOfBucket(bucketOfID(id)) }

// roleKey is group g's role: its holder's token.
func (s *Store) roleKey(g int) string {
	return s.o.Prefix + "sweeper:{" + bucketTags[g*Buckets/SweepGroups] + "}"
}

// sweepersKey is the sorted set of the instances that asked for a share
// of the groups, each scored by when its ask lapses (unix ms).
func (s *Store) sweepersKey() string { return s.o.Prefix + "sweepers" }

// sweepersScript drops the lapsed instances, adds ARGV[3] until ARGV[2],
// keeps the set ARGV[4] ms at least, and returns the instances.
var sweepersScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return redis.call('ZRANGE', KEYS[1], 0, -1)
`)

// renewRoleScript renews the role if ARGV[1] holds it, and returns its
// holder (” for none).
var renewRoleScript = redis.NewScript(`
local cur = redis.call('GET', KEYS[1])
if cur == ARGV[1] then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return cur or ''
`)

var releaseRoleScript = redis.NewScript(`
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`)

// Sweeper implements match.Store: in one round trip it renews the groups
// token holds, reads every group's holder and the instances asking; then,
// when its share changed, it gives up the groups above its share, or
// takes free ones up to it (a second round trip). The share of the n
// instances is SweepGroups/n, one more for the first SweepGroups%n of
// them in token order, so the shares add up to every group. The instances
// are listed by the clock of this machine (the role's own expiry is
// Redis's).
func (s *Store) Sweeper(ctx context.Context, token string, ttl time.Duration) ([]int, error) {
	now := time.Now().UnixMilli()
	ms := ttl.Milliseconds()
	var members *redis.Cmd
	holders := make([]*redis.Cmd, SweepGroups)
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		members = sweepersScript.Eval(ctx, p, []string{s.sweepersKey()}, now, now+ms, token, 2*ms)
		for g := range SweepGroups {
			holders[g] = renewRoleScript.Eval(ctx, p, []string{s.roleKey(g)}, token, ms)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("sweeper groups: %w", err)
	}
	tokens, err := members.StringSlice()
	if err != nil {
		return nil, fmt.Errorf("sweeper instances: %w", err)
	}
	slices.Sort(tokens)
	n, rank := len(tokens), slices.Index(tokens, token)
	share := SweepGroups / n
	if rank < SweepGroups%n {
		share++
	}
	var mine, free []int
	// Free groups are tried from this instance's place on: instances
	// that take at the same moment mostly try different ones.
	for i := range SweepGroups {
		g := (i + max(rank, 0)*SweepGroups/n) % SweepGroups
		switch h := holders[g].Val(); h {
		case token:
			mine = append(mine, g)
		case "", nil:
			free = append(free, g)
		}
	}
	if len(mine) == share {
		slices.Sort(mine)
		return mine, nil
	}
	var extra []int
	if len(mine) > share {
		mine, extra = mine[:share], mine[share:]
	}
	free = free[:min(len(free), share-len(mine))]
	taken := make([]*redis.BoolCmd, len(free))
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, g := range extra {
			releaseRoleScript.Eval(ctx, p, []string{s.roleKey(g)}, token)
		}
		for i, g := range free {
			taken[i] = p.SetNX(ctx, s.roleKey(g), token, ttl)
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("sweeper groups: %w", err)
	}
	for i, g := range free {
		if taken[i].Val() {
			mine = append(mine, g)
		}
	}
	slices.Sort(mine)
	return mine, nil
}

// ReleaseSweeper implements match.Store: the groups token holds are
// free at once, and it no longer counts among the instances.
func (s *Store) ReleaseSweeper(ctx context.Context, token string) error {
	_, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for g := range SweepGroups {
			releaseRoleScript.Eval(ctx, p, []string{s.roleKey(g)}, token)
		}
		p.ZRem(ctx, s.sweepersKey(), token)
		return nil
	})
	if err != nil {
		return fmt.Errorf("release sweeper groups: %w", err)
	}
	return nil
}

// SweeperHolders returns each group's holder ("" for none), for tests.
func (s *Store) SweeperHolders(ctx context.Context) ([]string, error) {
	cmds := make([]*redis.StringCmd, SweepGroups)
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for g := range SweepGroups {
			cmds[g] = p.Get(ctx, s.roleKey(g))
		}
		return nil
	}); err != nil && err != redis.Nil {
		return nil, err
	}
	out := make([]string, SweepGroups)
	for g, c := range cmds {
		out[g] = c.Val()
	}
	return out, nil
}

// sweepChannel is the channel of the sweepers' wake-ups: a message
// "DUE/GROUP" (versions before sent "DUE", read as any group). On a
// cluster, each group has its own sharded channel in its slot (see
// roleKey and shardsub.go), read by every instance.
func (s *Store) sweepChannel() string { return s.o.Prefix + "sweeper:wake" }

func (s *Store) groupChannel(g int) string {
	return s.o.Prefix + "sweeper:{" + bucketTags[g*Buckets/SweepGroups] + "}:wake"
}

// WakeSweeper implements match.Store: a message on the sweepers' channel
// (Pub/Sub: lost if the sweeper's connection is down).
func (s *Store) WakeSweeper(ctx context.Context, group int, due int64) error {
	msg := strconv.FormatInt(due, 10) + "/" + strconv.Itoa(group)
	if s.sharded() && group >= 0 && group < SweepGroups {
		return s.rdb.SPublish(ctx, s.groupChannel(group), msg).Err()
	}
	return s.rdb.Publish(ctx, s.sweepChannel(), msg).Err()
}

// SweeperWakes implements match.Store: a subscription of its own to the
// sweepers' channel, held until ctx ends (and renewed by the client after
// a reconnection); on a cluster, also one to each group's sharded
// channel (wakeShard), the plain channel carrying only the wake-ups of
// versions before.
func (s *Store) SweeperWakes(ctx context.Context, wake func(group int, due int64)) error {
	ps := s.rdb.Subscribe(ctx, s.sweepChannel())
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	_, err := ps.Receive(rctx) // the confirmation
	cancel()
	if err != nil {
		err = fmt.Errorf("subscribe to the sweeper's wake-ups: %w", err)
	}
	go func() {
		defer func() { _ = ps.Close() }()
		msgs := ps.Channel()
		for {
			select {
			case <-ctx.Done():
				return
			case m, ok := <-msgs:
				if !ok {
					return
				}
				wakeMessage(m.Payload, wake)
			}
		}
	}()
	if s.sharded() {
		for g := range SweepGroups {
			ready := make(chan error, 1)
			go s.wakeShard(ctx, g, ready, wake)
			if werr := <-ready; werr != nil && err == nil {
				err = fmt.Errorf("subscribe to the sweeper's wake-ups of group %d: %w", g, werr)
			}
		}
	}
	return err
}

// wakeShard reads group g's sharded wake-up channel until ctx ends,
// subscribing again when its slot's subscription is lost (shardReader);
// ready gets the first subscription's outcome.
func (s *Store) wakeShard(ctx context.Context, g int, ready chan<- error, wake func(group int, due int64)) {
	done := ctx.Done()
	for {
		ps := s.cluster.SSubscribe(ctx, s.groupChannel(g))
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := ps.Receive(rctx) // the confirmation
		cancel()
		if ready != nil {
			ready <- err
			ready = nil
		}
		stop := context.AfterFunc(ctx, func() { _ = ps.Close() })
		s.shardReader(ps, done, func(string) bool { return false }, func(m any) {
			if m, ok := m.(*redis.Message); ok {
				wakeMessage(m.Payload, wake)
			}
		})
		stop()
		_ = ps.Close()
		select {
		case <-done:
			return
		case <-time.After(shardRetry):
		}
	}
}

// wakeMessage passes a wake-up's group (-1: any) and due time on to wake.
func wakeMessage(payload string, wake func(group int, due int64)) {
	ds, gs, _ := strings.Cut(payload, "/")
	due, err := strconv.ParseInt(ds, 10, 64)
	if err != nil {
		return
	}
	g := -1
	if n, err := strconv.Atoi(gs); err == nil {
		g = n
	}
	wake(g, due)
}
