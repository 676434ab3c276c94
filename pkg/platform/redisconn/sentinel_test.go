package redisconn

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/testenv"
)

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	_, p, _ := net.SplitHostPort(l.Addr().String())
	return p
}

// start runs a Redis program until the test ends (or kill is called).
func start(t *testing.T, name string, args ...string) (kill func()) {
	t.Helper()
	cmd := exec.Command(name, args...)
	out := &strings.Builder{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", name, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	kill = func() { _ = cmd.Process.Kill(); <-done }
	t.Cleanup(func() {
		kill()
		if t.Failed() {
			t.Logf("--- %s %v\n%s", name, args, out.String())
		}
	})
	return kill
}

// waitFor polls cond until it holds, failing at the test's deadline (a
// busy machine may take its time), and returns how long it took.
func waitFor(t *testing.T, what string, cond func() bool) time.Duration {
	t.Helper()
	t0, deadline := time.Now(), testenv.Deadline(t)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %v, when the test's time ran out", what, time.Since(t0).Round(time.Millisecond))
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(t0)
}

// sentinelBinary is redis-sentinel, or redis-server in sentinel mode.
func sentinelBinary(t *testing.T) (string, []string) {
	if p, err := exec.LookPath("redis-sentinel"); err == nil {
		return p, nil
	}
	if p, err := exec.LookPath("redis-server"); err == nil {
		return p, []string{"--sentinel"}
	}
	t.Fatal("neither redis-sentinel nor redis-server is installed: scripts/test.sh installs them")
	return "", nil
}

// TestSentinelFailover runs a primary, a replica and a Sentinel as
// processes, writes through a client opened from a Sentinel URL, kills the
// primary, and checks that the client writes again once Sentinel has
// promoted the replica. It counts the acknowledged writes lost in the
// failover, with and without WAIT 1 (each write waits for the replica):
// with WAIT none may be lost; without, the number is logged.
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
	dir := t.TempDir()
	pp, rp, sp := freePort(t), freePort(t), freePort(t)
	common := []string{"--bind", "127.0.0.1", "--save", "", "--appendonly", "no"}
	killPrimary := start(t, "redis-server", append([]string{"--port", pp, "--dir", dir}, common...)...)
	start(t, "redis-server", append([]string{"--port", rp, "--dir", dir, "--replicaof", "127.0.0.1", pp}, common...)...)
	replica := redis.NewClient(&redis.Options{Addr: "127.0.0.1:" + rp})
	defer replica.Close()
	waitFor(t, "replica in sync", func() bool {
		info, _ := replica.Info(ctx, "replication").Result()
		return strings.Contains(info, "master_link_status:up")
	})
	conf := filepath.Join(dir, "sentinel.conf")
	if err := os.WriteFile(conf, []byte("port "+sp+"\nbind 127.0.0.1\ndir "+dir+"\n"+
		"sentinel monitor tabuleiro 127.0.0.1 "+pp+" 1\n"+
		"sentinel down-after-milliseconds tabuleiro 500\n"+
		"sentinel failover-timeout tabuleiro 5000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin, args := sentinelBinary(t)
	start(t, bin, append([]string{conf}, args...)...)

	rdb, err := Open("redis://127.0.0.1:" + sp + "/0?master_name=tabuleiro&dial_timeout=1s&max_retries=0")
	if err != nil {
		t.Fatal(err)
	}
	defer rdb.Close()
	waitFor(t, "the client reaches the primary through Sentinel", func() bool { return rdb.Ping(ctx).Err() == nil })

	// Acknowledged writes: a counter incremented 200 times, then the
	// primary is killed. (Killing it while writes go on was tried: the
	// failover client then did not write again within a minute in some
	// runs; not resolved, see deploy/README.md.)
	var acked atomic.Int64
	for range 200 {
		n, err := rdb.Incr(ctx, "plies").Result()
		if err != nil {
			t.Fatal(err)
		}
		// WAIT 1 until the replica has the write (a busy machine may take
		// longer than one WAIT's timeout).
		for got := int64(0); wait && got < 1; {
			if got, err = rdb.Do(ctx, "WAIT", 1, 1000).Int64(); err != nil {
				t.Fatalf("WAIT 1: %v", err)
			}
		}
		acked.Store(n)
	}
	killPrimary()
	took := waitFor(t, "a write after the failover", func() bool {
		return rdb.Set(ctx, "after", "1", 0).Err() == nil
	})
	info, _ := replica.Info(ctx, "replication").Result()
	if !strings.Contains(info, "role:master") {
		t.Fatalf("the replica was not promoted:\n%s", info)
	}
	v, err := rdb.Get(ctx, "plies").Result()
	if err != nil {
		t.Fatal(err)
	}
	have, _ := strconv.ParseInt(v, 10, 64)
	lost := max(0, acked.Load()-have)
	t.Logf("WAIT 1 %v: %d writes acknowledged, %d on the promoted replica, %d lost; writes resumed %v after the kill", wait, acked.Load(), have, lost, took.Round(10*time.Millisecond))
	if wait && lost != 0 {
		t.Errorf("%d writes acknowledged after WAIT 1 were lost", lost)
	}
}
