package walredis

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/alicebob/miniredis/v2"
	"github.com/redis/go-redis/v9"
)

// The benchmarks of issue 14:
//
//	go test -run '^$' -bench . -benchtime 2s ./cmd/tabuleiro/internal/walredis/
//
// BenchmarkCommand: a match commit (the script of the match service's
// shape: state, ply list, event stream, outbox, deadlines, TTLs) and a
// GET, with 100, 10,000 and 100,000 other keys that have TTLs; on the
// store with its log (each commit waits for its fsync), on the store
// without a log (the cost of the command alone), and on plain miniredis
// with clock-driven expiry (the one-process mode before issue 14).
// BenchmarkSave, BenchmarkStart and BenchmarkShutdown: a compaction, a
// start (from a snapshot, and from the log alone) and a Close at 10,000
// and 100,000 keys.

var benchSizes = []int{100, 10_000, 100_000}

// populate writes n keys: a fifth each of strings, hashes, lists, sorted
// set members and streams, all with a TTL of a day, through pipelines.
func populate(tb testing.TB, c *redis.Client, n int) {
	tb.Helper()
	ctx := context.Background()
	const batch = 1000
	for i := 0; i < n; i += batch {
		_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
			for j := i; j < min(i+batch, n); j++ {
				k := "bench:" + strconv.Itoa(j)
				switch j % 5 {
				case 0:
					p.Set(ctx, k, "value-"+k, 24*time.Hour)
				case 1:
					p.HSet(ctx, k, "v", j, "s", `{"id":"`+k+`","status":"playing","seats":["a","b"]}`)
				case 2:
					p.RPush(ctx, k, "e2", "e8", "e3", "e7")
				case 3:
					p.XAdd(ctx, &redis.XAddArgs{Stream: k, ID: "1-1", Values: []any{"e", `{"seq":1}`}})
				case 4:
					p.ZAdd(ctx, k, redis.Z{Score: float64(j), Member: "m"})
				}
				if j%5 != 0 {
					p.PExpire(ctx, k, 24*time.Hour)
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
}

var benchCommit = redis.NewScript(`
local v = redis.call('HGET', KEYS[1], 'v')
if v ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3])
redis.call('RPUSH', KEYS[2], ARGV[3])
redis.call('XADD', KEYS[3], 'MAXLEN', 1000, ARGV[2] .. '-1', 'e', ARGV[3])
redis.call('PUBLISH', 'chan', ARGV[3])
for k = 1, 3 do redis.call('PEXPIRE', KEYS[k], 86400000) end
redis.call('ZADD', KEYS[4], ARGV[2], 'match')
return 1
`)

func benchCommands(b *testing.B, c *redis.Client) {
	ctx := context.Background()
	keys := []string{"m:{x}", "m:{x}:p", "m:{x}:e", "deadlines"}
	if err := c.HSet(ctx, keys[0], "v", 0).Err(); err != nil {
		b.Fatal(err)
	}
	b.Run("cmd=commit", func(b *testing.B) {
		v, _ := c.HGet(ctx, keys[0], "v").Int64()
		defer cpuPerOp(b)()
		for b.Loop() {
			n, err := benchCommit.Run(ctx, c, keys, v, v+1, `{"ply":"e2","seq":`+strconv.FormatInt(v+1, 10)+`}`).Int()
			if err != nil || n != 1 {
				b.Fatalf("commit: %d %v", n, err)
			}
			v++
		}
	})
	b.Run("cmd=get", func(b *testing.B) {
		defer cpuPerOp(b)()
		for b.Loop() {
			if err := c.Get(ctx, "bench:0").Err(); err != nil && err != redis.Nil {
				b.Fatal(err)
			}
		}
	})
}

// cpuPerOp reports the process's CPU time (user and system, server and
// client together) per operation: on a loaded machine it moves much less
// than the wall time.
func cpuPerOp(b *testing.B) func() {
	cpu := func() time.Duration {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64(cpu()-start)/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkCommand(b *testing.B) {
	for _, store := range []string{"wal", "memory", "miniredis-clockttl"} {
		for _, n := range benchSizes {
			if store == "miniredis-clockttl" && n > 10_000 {
				continue // seconds per command
			}
			b.Run(fmt.Sprintf("store=%s/keys=%d", store, n), func(b *testing.B) {
				var addr string
				switch store {
				case "miniredis-clockttl":
					m := miniredis.NewMiniRedis()
					m.ClockTTL(true)
					if err := m.Start(); err != nil {
						b.Fatal(err)
					}
					defer m.Close()
					addr = m.Addr()
				default:
					o := Options{}
					if store == "wal" {
						o.Dir = b.TempDir()
					}
					s, err := Open(o)
					if err != nil {
						b.Fatal(err)
					}
					defer func() { _ = s.Close() }()
					addr = s.Addr()
				}
				c := redis.NewClient(&redis.Options{Addr: addr})
				defer func() { _ = c.Close() }()
				populate(b, c, n)
				benchCommands(b, c)
			})
		}
	}
}

// filled returns a directory holding n keys: in the log alone, or (with
// snapshot) compacted into a snapshot.
func filled(b *testing.B, n int, snapshot bool) string {
	b.Helper()
	dir := b.TempDir()
	s, err := Open(Options{Dir: dir, CompactMinBytes: 1 << 40})
	if err != nil {
		b.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	populate(b, c, n)
	_ = c.Close()
	if snapshot {
		if err := s.Compact(context.Background()); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	return dir
}

func dirBytes(b *testing.B, dir string) int64 {
	ents, _ := os.ReadDir(dir)
	var n int64
	for _, e := range ents {
		if fi, err := e.Info(); err == nil {
			n += fi.Size()
		}
	}
	return n
}

func BenchmarkSave(b *testing.B) {
	for _, n := range benchSizes[1:] {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			dir := filled(b, n, true)
			s, err := Open(Options{Dir: dir, CompactMinBytes: 1 << 40})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			for b.Loop() {
				if err := s.Compact(context.Background()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(dirBytes(b, dir))/1e6, "MB-on-disk")
		})
	}
}

func BenchmarkStart(b *testing.B) {
	for _, n := range benchSizes[1:] {
		for _, from := range []string{"snapshot", "log"} {
			b.Run(fmt.Sprintf("keys=%d/from=%s", n, from), func(b *testing.B) {
				dir := filled(b, n, from == "snapshot")
				for b.Loop() {
					s, err := Open(Options{Dir: dir, CompactMinBytes: 1 << 40})
					if err != nil {
						b.Fatal(err)
					}
					b.StopTimer()
					if got := len(s.m.Keys()); got < n {
						b.Fatalf("%d keys after the start, want %d", got, n)
					}
					_ = s.Close()
					b.StartTimer()
				}
			})
		}
	}
}

func BenchmarkShutdown(b *testing.B) {
	for _, n := range benchSizes[1:] {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			dir := filled(b, n, true)
			for b.Loop() {
				b.StopTimer()
				s, err := Open(Options{Dir: dir, CompactMinBytes: 1 << 40})
				if err != nil {
					b.Fatal(err)
				}
				c := redis.NewClient(&redis.Options{Addr: s.Addr()})
				if err := c.Set(context.Background(), "last", "write", 0).Err(); err != nil {
					b.Fatal(err)
				}
				_ = c.Close()
				b.StartTimer()
				if err := s.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
