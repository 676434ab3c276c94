package redisconn

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/testenv"
)

// What the Redis alerts read: the primary's connected replicas, and
// whether the Sentinels can fail it over (SENTINEL CKQUORUM), which stops
// being so when the Sentinel is gone.
func TestReplicasAndSentinelQuorum(t *testing.T) {
	ctx := testenv.Context(t, context.Background())
	set := testenv.StartSentinelSet(t, 1)
	rdb := redis.NewClient(&redis.Options{Addr: set.Primary()})
	t.Cleanup(func() { _ = rdb.Close() })
	if n, err := Replicas(ctx, rdb); err != nil || n != 1 {
		t.Fatalf("replicas: %d, %v; want 1", n, err)
	}
	if SentinelQuorum("redis://127.0.0.1:6379/0") != nil {
		t.Fatal("a quorum check for a URL without Sentinels")
	}
	q := SentinelQuorum(set.URL("dial_timeout=1s"))
	if err := q(ctx); err != nil {
		t.Fatalf("quorum with the Sentinel up: %v", err)
	}
	set.Kill(set.Sentinel)
	if err := q(ctx); err == nil {
		t.Fatal("quorum reported with no Sentinel answering")
	}
	set.Kill(set.Replicas[0])
	if n, err := Replicas(ctx, rdb); err != nil || n != 0 {
		t.Fatalf("replicas after the replica's death: %d, %v; want 0", n, err)
	}
}
