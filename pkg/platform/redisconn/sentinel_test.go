package redisconn_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/redisconn"
	"tabuleiro.dev/pkg/platform/testenv"
)

// TestSentinelFailover runs a primary, a replica and a Sentinel as
// processes (testenv.StartSentinelSet), writes through a client opened
// from a Sentinel URL, kills the primary, and checks that the client
// writes again once Sentinel has promoted the replica. It counts the
// acknowledged writes lost in the failover, with and without WAIT 1 (each
// write waits for the replica, in the same pipeline, so on the same
// connection): with WAIT none may be lost; without, the number is logged.
// The match service's games through a failover, with plies played while
// the primary dies, are services/match/matchserver's
// TestSentinelFailoverGames.
func TestSentinelFailover(t *testing.T) {
	if testing.Short() && os.Getenv("TABULEIRO_TEST_SENTINEL") == "" {
		// It takes a few seconds of Sentinel timeouts: scripts/test.sh runs
		// it in its own step (sentinel) with TABULEIRO_TEST_SENTINEL=1.
		t.Skip("set TABULEIRO_TEST_SENTINEL=1")
	}
	for _, wait := range []bool{false, true} {
		t.Run(fmt.Sprintf("wait=%v", wait), func(t *testing.T) { failover(t, wait) })
	}
}

func failover(t *testing.T, wait bool) {
	ctx := testenv.Context(t, context.Background())
	set := testenv.StartSentinelSet(t, 1)
	primary := set.Primary()
	rdb, err := redisconn.Open(set.URL("dial_timeout=1s&max_retries=0"))
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	set.Eventually(30*time.Second, "the client reaches the primary through Sentinel", func() bool { return rdb.Ping(ctx).Err() == nil })

	// Acknowledged writes: a counter incremented 200 times, then the
	// primary is killed.
	var acked int64
	for range 200 {
		var incr *redis.IntCmd
		var replicas *redis.IntCmd
		_, err := rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
			incr = p.Incr(ctx, "plies")
			if wait {
				replicas = redis.NewIntCmd(ctx, "WAIT", 1, 1000)
				_ = p.Process(ctx, replicas)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if wait && replicas.Val() < 1 {
			t.Fatalf("WAIT 1: %d replicas", replicas.Val())
		}
		acked = incr.Val()
	}
	set.Kill(primary)
	took := set.Eventually(60*time.Second, "a write after the failover", func() bool {
		return rdb.Set(ctx, "after", "1", 0).Err() == nil
	})
	if now := set.Primary(); now == primary || set.Role(now) != "master" {
		t.Fatalf("the replica was not promoted: Sentinel names %s (%s)", now, set.Role(now))
	}
	v, err := rdb.Get(ctx, "plies").Result()
	if err != nil && !errors.Is(err, redis.Nil) { // Nil: every write lost
		t.Fatal(err)
	}
	have, _ := strconv.ParseInt(v, 10, 64)
	lost := max(0, acked-have)
	t.Logf("WAIT 1 %v: %d writes acknowledged, %d on the promoted replica, %d lost; writes resumed %v after the kill", wait, acked, have, lost, took.Round(10*time.Millisecond))
	if wait && lost != 0 {
		t.Errorf("%d writes acknowledged after WAIT 1 were lost", lost)
	}
}
