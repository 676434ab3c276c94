package local

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/testenv"
)

// Every kind of key the services use survives a stop and a start, TTLs
// included.
func TestRedisSnapshotRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "redis.jsonl")
	r, err := startRedis(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	c := redis.NewClient(&redis.Options{Addr: r.m.Addr()})
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(c.Set(ctx, "{m1}:s", "v", time.Hour).Err())
	must(c.RPush(ctx, "{m1}:l", "a", "b", "c").Err())
	must(c.SAdd(ctx, "{m1}:set", "x", "y").Err())
	must(c.HSet(ctx, "{m1}:h", "f1", "1", "f2", "2").Err())
	must(c.ZAdd(ctx, "{m1}:z", redis.Z{Score: 1.5, Member: "p"}, redis.Z{Score: -2, Member: "q"}).Err())
	must(c.XAdd(ctx, &redis.XAddArgs{Stream: "{m1}:x", ID: "5-1", Values: []string{"k", "v"}}).Err())
	must(c.XAdd(ctx, &redis.XAddArgs{Stream: "{m1}:x", ID: "6-0", Values: []string{"k", "w"}}).Err())
	_ = c.Close()
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}

	r2, err := startRedis(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r2.Close() })
	c = redis.NewClient(&redis.Options{Addr: r2.m.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	if v, _ := c.Get(ctx, "{m1}:s").Result(); v != "v" {
		t.Errorf("string = %q, want v", v)
	}
	if ttl := c.TTL(ctx, "{m1}:s").Val(); ttl <= 59*time.Minute || ttl > time.Hour {
		t.Errorf("ttl = %v, want about 1h", ttl)
	}
	if l := c.LRange(ctx, "{m1}:l", 0, -1).Val(); !slices.Equal(l, []string{"a", "b", "c"}) {
		t.Errorf("list = %v", l)
	}
	s := c.SMembers(ctx, "{m1}:set").Val()
	slices.Sort(s)
	if !slices.Equal(s, []string{"x", "y"}) {
		t.Errorf("set = %v", s)
	}
	if h := c.HGetAll(ctx, "{m1}:h").Val(); h["f1"] != "1" || h["f2"] != "2" || len(h) != 2 {
		t.Errorf("hash = %v", h)
	}
	if z := c.ZRangeWithScores(ctx, "{m1}:z", 0, -1).Val(); len(z) != 2 || z[0].Member != "q" || z[1].Score != 1.5 {
		t.Errorf("zset = %v", z)
	}
	x := c.XRange(ctx, "{m1}:x", "-", "+").Val()
	if len(x) != 2 || x[0].ID != "5-1" || x[1].Values["k"] != "w" {
		t.Errorf("stream = %v", x)
	}
}

// Keys expire on the wall clock, as on a real Redis (miniredis by itself
// expires them only on FastForward).
func TestRedisExpiresInRealTime(t *testing.T) {
	t.Parallel()
	r, err := startRedis("")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Close() })
	c := redis.NewClient(&redis.Options{Addr: r.m.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Set(t.Context(), "k", "v", 20*time.Millisecond).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.After(time.Until(testenv.Deadline(t)))
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for c.Exists(t.Context(), "k").Val() == 1 {
		select {
		case <-deadline:
			t.Fatal("a key with a 20ms TTL still exists after 5s")
		case <-poll.C:
		}
	}
}

// A key deleted between the listing and its reading (a player's live
// match set, the lease zset: the services write while a save runs) is
// skipped, not a failed save; the other keys are kept.
func TestRedisSaveSkipsVanishedKeys(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "redis.jsonl")
	r, err := startRedis(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	c := redis.NewClient(&redis.Options{Addr: r.m.Addr()})
	t.Cleanup(func() { _ = c.Close() })
	if err := c.Set(ctx, "match:kept", "v", 0).Err(); err != nil {
		t.Fatal(err)
	}
	r.keys = func() []string {
		return append(r.m.Keys(), "match:pl:alice", "match:leases")
	}
	if err := r.save(); err != nil {
		t.Fatalf("save with keys gone since the listing: %v", err)
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	r2, err := startRedis(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r2.Close() })
	if keys := r2.m.Keys(); !slices.Equal(keys, []string{"match:kept"}) {
		t.Fatalf("keys after reload %v, want [match:kept]", keys)
	}
}

// Save requests made while a save is due (or running) coalesce into
// exactly one more save, and RequestSave never blocks.
func TestRedisSaveRequestsCoalesce(t *testing.T) {
	t.Parallel()
	r, err := startRedis("")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = r.Close() }()
	for range 5 {
		r.RequestSave()
	}
	if got := len(r.kick); got != 1 {
		t.Fatalf("%d saves pending after 5 requests; want 1", got)
	}
	<-r.kick // the save loop takes it and saves
	if got := len(r.kick); got != 0 {
		t.Fatalf("%d saves pending after one was taken; want 0", got)
	}
	r.RequestSave() // a request during that save: exactly one more
	if got := len(r.kick); got != 1 {
		t.Fatalf("%d saves pending after a request during a save; want 1", got)
	}
}
