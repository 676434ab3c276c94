package ratelimit_test

import (
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/testenv"
)

// The burst passes, the next request is RESOURCE_EXHAUSTED with a retry
// delay, other keys are untouched, and a second limiter on the same Redis
// (another instance) sees the same count.
func TestAllowAcrossInstances(t *testing.T) {
	rdb, prefix := testenv.Redis(t, "rl")
	a, b := ratelimit.New(rdb, prefix), ratelimit.New(rdb, prefix)
	rule := ratelimit.Rule{What: "guest sign-ins", Rate: 30, Burst: 5, Period: time.Hour}
	ctx := t.Context()
	for i := range 5 {
		l := a
		if i%2 == 1 {
			l = b
		}
		if err := l.Allow(ctx, rule, "signin", "10.0.0.1"); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	for _, l := range []*ratelimit.Limiter{a, b} {
		err := l.Allow(ctx, rule, "signin", "10.0.0.1")
		if status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("over the burst: %v, want ResourceExhausted", err)
		}
		// The reason states the limit enforced: the burst, then the rate.
		if want := "at most 5 at once, then 30 per hour"; !strings.Contains(status.Convert(err).Message(), want) {
			t.Errorf("reason %q, want it to say %q", status.Convert(err).Message(), want)
		}
		if d, ok := ratelimit.RetryDelay(err); !ok || d <= 0 || d > time.Hour {
			t.Fatalf("retry delay %v (%v), want within the period", d, ok)
		}
	}
	if err := a.Allow(ctx, rule, "signin", "10.0.0.2"); err != nil {
		t.Fatalf("another address: %v", err)
	}
	if err := a.Allow(ctx, rule, "rooms", "10.0.0.1"); err != nil {
		t.Fatalf("another rule: %v", err)
	}
	var nilLimiter *ratelimit.Limiter
	if err := nilLimiter.Allow(ctx, rule, "signin", "10.0.0.1"); err != nil {
		t.Fatalf("nil limiter: %v", err)
	}
}

// At most Max streams per key, on any instance; a released stream frees
// its place at once, a stream whose instance stopped renewing it frees it
// after its TTL (an injected clock, no waiting).
func TestStreamsCap(t *testing.T) {
	rdb, prefix := testenv.Redis(t, "rl")
	var now atomic.Int64
	now.Store(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	clock := func() time.Time { return time.UnixMilli(now.Load()) }
	a := ratelimit.NewStreams(rdb, prefix, "watch streams", 3)
	b := ratelimit.NewStreams(rdb, prefix, "watch streams", 3)
	a.Now, b.Now = clock, clock
	ctx := t.Context()
	var releases []func()
	for i := range 3 {
		s := a
		if i == 2 {
			s = b
		}
		rel, err := s.Acquire(ctx, "p1")
		if err != nil {
			t.Fatalf("stream %d: %v", i+1, err)
		}
		releases = append(releases, rel)
	}
	_, err := b.Acquire(ctx, "p1")
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("fourth stream: %v, want ResourceExhausted", err)
	}
	if _, err := a.Acquire(ctx, "p2"); err != nil {
		t.Fatalf("another player: %v", err)
	}
	releases[0]()
	rel, err := b.Acquire(ctx, "p1")
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	_ = rel
	// An instance that died renews nothing: its streams lapse after TTL.
	now.Add((30*time.Second + time.Millisecond).Milliseconds())
	if n, _ := a.Open(ctx, "p1"); n != 0 {
		t.Fatalf("%d streams counted after their leases lapsed", n)
	}
	if _, err := a.Acquire(ctx, "p1"); err != nil {
		t.Fatalf("after the leases lapsed: %v", err)
	}
}

// An instance whose heartbeat stops (it died, or hangs) holds its slots
// until its heartbeat lapses, TTL after its last beat, while the other
// instance's streams, whose heartbeat goes on, keep counting; the
// acquire that finds the key at its cap purges the dead instance's
// members. Streams renew nothing one by one: one heartbeat per instance.
func TestStreamsDeadInstanceFreesSlots(t *testing.T) {
	rdb, prefix := testenv.Redis(t, "rl")
	var now atomic.Int64
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli()
	now.Store(t0)
	clock := func() time.Time { return time.UnixMilli(now.Load()) }
	a := ratelimit.NewStreams(rdb, prefix, "match streams", 3)
	b := ratelimit.NewStreams(rdb, prefix, "match streams", 3)
	a.Now, b.Now = clock, clock
	ctx := t.Context()
	for range 2 {
		if _, err := a.Acquire(ctx, "p1"); err != nil {
			t.Fatal(err)
		}
	}
	relB, err := b.Acquire(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	defer relB()
	// a dies: its heartbeat stops; b's goes on.
	a.Stop()
	now.Add(a.TTL.Milliseconds() / 2)
	if err := b.Beat(ctx); err != nil {
		t.Fatal(err)
	}
	_, err = b.Acquire(ctx, "p1")
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("at the cap before a's heartbeat lapsed: %v, want ResourceExhausted", err)
	}
	if d, ok := ratelimit.RetryDelay(err); !ok || d <= 0 || d > a.TTL {
		t.Fatalf("retry delay %v (%v), want within the TTL", d, ok)
	}
	now.Store(t0 + a.TTL.Milliseconds() + 1)
	if n, err := b.Open(ctx, "p1"); err != nil || n != 1 {
		t.Fatalf("open after a's heartbeat lapsed: %d, %v; want 1 (b's)", n, err)
	}
	for i := range 2 {
		if _, err := b.Acquire(ctx, "p1"); err != nil {
			t.Fatalf("stream %d in a's freed slots: %v", i+1, err)
		}
	}
	if _, err := b.Acquire(ctx, "p1"); status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("b at the cap: %v, want ResourceExhausted", err)
	}
	// a's members were purged, not just skipped.
	set, _ := b.Keys("p1")
	members, err := rdb.ZRange(ctx, set, 0, -1).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 3 {
		t.Fatalf("members %q, want b's 3 only", members)
	}
	for _, m := range members {
		if !strings.HasPrefix(m, b.Instance+"/") {
			t.Errorf("member %q is not b's", m)
		}
	}
}

// At the cap with every instance alive: refused with a retry delay, the
// live members are kept (none purged), a release frees a slot at once,
// and a refused acquire leaves nothing behind.
func TestStreamsAtCap(t *testing.T) {
	rdb, prefix := testenv.Redis(t, "rl")
	a := ratelimit.NewStreams(rdb, prefix, "lobby streams", 2)
	b := ratelimit.NewStreams(rdb, prefix, "lobby streams", 2)
	ctx := t.Context()
	relA, err := a.Acquire(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Acquire(ctx, "p1"); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*ratelimit.Streams{a, b} {
		if _, err := s.Acquire(ctx, "p1"); status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("third stream: %v, want ResourceExhausted", err)
		}
	}
	key, _ := a.Keys("p1")
	if n := rdb.ZCard(ctx, key).Val(); n != 2 {
		t.Fatalf("%d members after refusals, want 2", n)
	}
	relA()
	relA() // once only: a second call frees nothing more
	if n, _ := a.Open(ctx, "p1"); n != 1 {
		t.Fatalf("open after a release: %d, want 1", n)
	}
	rel, err := a.Acquire(ctx, "p1")
	if err != nil {
		t.Fatalf("after a release: %v", err)
	}
	rel()
}

// The heartbeat runs by itself while the instance holds streams (its
// score moves on), keeps the sets of its open streams from expiring
// (KeyTTL), and stops with the instance's last stream.
func TestStreamsHeartbeat(t *testing.T) {
	rdb, prefix := testenv.Redis(t, "rl")
	s := ratelimit.NewStreams(rdb, prefix, "watch streams", 2)
	s.TTL = 300 * time.Millisecond
	ctx := t.Context()
	_, hosts := s.Keys("p1")
	rel, err := s.Acquire(ctx, "p1")
	if err != nil {
		t.Fatal(err)
	}
	first := rdb.ZScore(ctx, hosts, s.Instance).Val()
	for rdb.ZScore(ctx, hosts, s.Instance).Val() == first {
		select {
		case <-ctx.Done():
			t.Fatal("the heartbeat never beat")
		case <-time.After(20 * time.Millisecond):
		}
	}
	rel()
	s.Stop() // returns once the heartbeat has ended

	// The key's expiry: an injected clock past KeyTTL/2, a key about to
	// expire, one beat.
	var now atomic.Int64
	now.Store(time.Now().UnixMilli())
	s.Now = func() time.Time { return time.UnixMilli(now.Load()) }
	rel, err = s.Acquire(ctx, "p2")
	if err != nil {
		t.Fatal(err)
	}
	defer rel()
	s.Stop()
	key, _ := s.Keys("p2")
	if err := rdb.PExpire(ctx, key, 10*time.Second).Err(); err != nil {
		t.Fatal(err)
	}
	if err := s.Beat(ctx); err != nil {
		t.Fatal(err)
	}
	if d := rdb.PTTL(ctx, key).Val(); d > 10*time.Second {
		t.Fatalf("a beat before KeyTTL/2 set the key's expiry (%v)", d)
	}
	now.Add(s.KeyTTL.Milliseconds() / 2)
	if err := s.Beat(ctx); err != nil {
		t.Fatal(err)
	}
	if d := rdb.PTTL(ctx, key).Val(); d < s.KeyTTL/2 {
		t.Fatalf("key expires in %v after a beat past KeyTTL/2, want about %v", d, s.KeyTTL)
	}
}

// A cap's keys are split over its buckets, each set in one hash tag with
// its bucket's heartbeats (one slot on Redis Cluster), so that the caps of
// many players spread over a cluster's primaries.
func TestStreamsKeysSpreadOverBuckets(t *testing.T) {
	s := ratelimit.NewStreams(nil, "p:", "match streams", 2)
	tags := map[string]int{}
	for i := range 1000 {
		set, hosts := s.Keys(fmt.Sprintf("player-%d", i))
		tag := set[strings.Index(set, "{") : strings.Index(set, "}")+1]
		if !strings.HasPrefix(hosts, "p:streams:"+tag) {
			t.Fatalf("set %s and heartbeats %s are not in one hash tag", set, hosts)
		}
		tags[tag]++
	}
	if len(tags) != ratelimit.StreamBuckets {
		t.Fatalf("1,000 keys in %d buckets, want all %d", len(tags), ratelimit.StreamBuckets)
	}
	for tag, n := range tags {
		if n < 1000/ratelimit.StreamBuckets/2 {
			t.Errorf("bucket %s holds %d of 1,000 keys", tag, n)
		}
	}
}
