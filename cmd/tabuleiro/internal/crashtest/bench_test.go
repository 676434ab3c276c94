package crashtest

import (
	"bufio"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/cmd/tabuleiro/internal/walredis"
)

// BenchmarkServe times a real `tabuleiro serve` on a data directory whose
// embedded Redis holds 10,000 (and 100,000) live keys with TTLs: from the
// start of the process to its banner (every service listening), and from
// SIGTERM to its exit. Issue 14 asks for under 2 s each at 10,000 keys.
//
//	go test -run '^$' -bench Serve -benchtime 5x ./cmd/tabuleiro/internal/crashtest/
func BenchmarkServe(b *testing.B) {
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("keys=%d", n), func(b *testing.B) {
			bin := binary(b)
			dataDir := b.TempDir()
			fill(b, filepath.Join(dataDir, "redis"), n)
			var start, stop time.Duration
			for b.Loop() {
				t0 := time.Now()
				cmd := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--data-dir", dataDir)
				out, err := cmd.StdoutPipe()
				if err != nil {
					b.Fatal(err)
				}
				if err := cmd.Start(); err != nil {
					b.Fatal(err)
				}
				sc := bufio.NewScanner(out)
				ready := false
				for sc.Scan() {
					if bannerRE.MatchString(sc.Text()) {
						ready = true
						break
					}
				}
				if !ready {
					b.Fatal("serve printed no banner")
				}
				start += time.Since(t0)
				go func() {
					for sc.Scan() {
					}
				}()
				t1 := time.Now()
				_ = cmd.Process.Signal(syscall.SIGTERM)
				if err := cmd.Wait(); err != nil {
					b.Fatalf("serve after SIGTERM: %v", err)
				}
				stop += time.Since(t1)
			}
			b.ReportMetric(float64(start.Milliseconds())/float64(b.N), "start-ms")
			b.ReportMetric(float64(stop.Milliseconds())/float64(b.N), "stop-ms")
		})
	}
}

// fill writes n keys with a TTL of a day into the embedded Redis at dir,
// half in a snapshot and half in the log after it.
func fill(b *testing.B, dir string, n int) {
	s, err := walredis.Open(walredis.Options{Dir: dir})
	if err != nil {
		b.Fatal(err)
	}
	c := redis.NewClient(&redis.Options{Addr: s.Addr()})
	ctx := context.Background()
	put := func(from, to int) {
		for i := from; i < to; i += 1000 {
			_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
				for j := i; j < min(i+1000, to); j++ {
					k := "bench:" + strconv.Itoa(j)
					if j%2 == 0 {
						p.Set(ctx, k, "value", 24*time.Hour)
					} else {
						p.HSet(ctx, k, "v", j, "s", `{"status":"playing"}`)
						p.PExpire(ctx, k, 24*time.Hour)
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	put(0, n/2)
	if err := s.Compact(ctx); err != nil {
		b.Fatal(err)
	}
	put(n/2, n)
	_ = c.Close()
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
}
