package recorder_test

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// Each match start names a new recorder consumer: the consumers of stopped
// instances with nothing pending are pruned once idle; one with a pending
// entry, and one that read recently, are kept.
func TestPruneConsumersOfStoppedInstances(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	store := redisstore.New(rdb, redisstore.Options{Prefix: prefix, FinishedTTL: time.Minute})
	ctx := t.Context()
	const group = "recorder"
	if err := store.EnsureGroup(ctx, group); err != nil {
		t.Fatal(err)
	}
	// The last bucket's stream (its entries' StreamIDs name the bucket).
	keys := store.AllIndexKeys("outbox")
	key, bucket := keys[len(keys)-1], strconv.Itoa(redisstore.Buckets-1)+"/"
	// Each consumer reads one entry (Redis creates a consumer when it is
	// delivered something); old-pending never acknowledges its own (its
	// write was interrupted), the others do.
	read := func(c string, ack bool) {
		t.Helper()
		if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: key, Values: []string{"record", "{}"}}).Err(); err != nil {
			t.Fatal(err)
		}
		res, err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: group, Consumer: c, Streams: []string{key, ">"}, Count: 1, Block: -1}).Result()
		if err != nil || len(res) != 1 || len(res[0].Messages) != 1 {
			t.Fatalf("%s read %v, %v", c, res, err)
		}
		if ack {
			if err := store.AckOutbox(ctx, group, bucket+res[0].Messages[0].ID); err != nil {
				t.Fatal(err)
			}
		}
	}
	read("old-pending", false)
	read("old-1", true)
	read("old-2", true)
	names := func() []string {
		cs, err := rdb.XInfoConsumers(ctx, key, group).Result()
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, c := range cs {
			out = append(out, c.Name)
		}
		slices.Sort(out)
		return out
	}
	// Nothing has been idle an hour: nothing goes.
	if n, err := store.PruneConsumers(ctx, group, time.Hour); err != nil || n != 0 {
		t.Fatalf("PruneConsumers(1h) = %d, %v; want 0", n, err)
	}
	// The threshold separates the old consumers from the live one, which
	// reads just before the prune. A machine that stalls for longer than
	// the threshold between those two calls makes the live one look idle
	// too: then the attempt is repeated with a doubled threshold (the old
	// consumers read again), and only a live consumer pruned sooner fails.
	for idle := 2 * time.Second; ; idle *= 2 {
		testenv.Eventually(t, 2*idle, "consumers idle "+idle.String(), func() bool {
			cs, _ := rdb.XInfoConsumers(ctx, key, group).Result()
			for _, c := range cs {
				if c.Idle < idle {
					return false
				}
			}
			return true
		})
		before := time.Now()
		read("live", true)
		n, err := store.PruneConsumers(ctx, group, idle)
		if err != nil {
			t.Fatalf("PruneConsumers: %v", err)
		}
		got := names()
		if !slices.Contains(got, "live") {
			if stalled := time.Since(before); stalled < idle {
				t.Fatalf("PruneConsumers(%v) pruned the consumer that read %v ago", idle, stalled)
			}
			t.Logf("the machine stalled for longer than %v between a read and the prune: again with twice the threshold", idle)
			read("old-1", true)
			read("old-2", true)
			continue
		}
		if n != 2 || !slices.Equal(got, []string{"live", "old-pending"}) {
			t.Fatalf("PruneConsumers = %d, consumers left: %v; want 2 pruned (old-1, old-2), live and old-pending left", n, got)
		}
		return
	}
}
