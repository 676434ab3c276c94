package match_test

import (
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// BenchmarkConcurrentPlies plays plies on many matches at once on one
// instance and reports the processor time per ply of the instance (this
// process) and of Redis (INFO cpu; the test Redis must be otherwise idle
// for that figure to mean anything), and the matches started per ply
// (each op is a Get and a ply; a finished or refused match is replaced,
// its creation counted in the op).
func BenchmarkConcurrentPlies(b *testing.B) {
	benchPlies(b, newEnv(b, 1, redisstore.Options{}, match.Config{}))
}

// BenchmarkConcurrentPliesWait is BenchmarkConcurrentPlies with every
// commit waiting for a replica (Options.WaitReplicas), on a primary and a
// replica of its own (redis-cpu-ms/op is the primary's).
func BenchmarkConcurrentPliesWait(b *testing.B) {
	set := ptestenv.StartSentinelSet(b, 1)
	rdb := redis.NewClient(&redis.Options{Addr: set.Primary()})
	b.Cleanup(func() { _ = rdb.Close() })
	benchPlies(b, newEnvOn(b, rdb, "bench:", 1, redisstore.Options{WaitReplicas: 1, WaitTimeout: time.Minute}, match.Config{}))
}

func benchPlies(b *testing.B, e *env) {
	svc := e.svcs[0]
	ctx := b.Context()
	newMatch := func() string {
		id := e.create(svc, nil).ID
		for _, seat := range []engine.Seat{engine.First, engine.Second} {
			if _, err := svc.Join(ctx, id, seat); err != nil {
				b.Fatal(err)
			}
		}
		return id
	}
	redisCPU := func() float64 {
		s, err := e.rdb.Info(ctx, "cpu").Result()
		if err != nil {
			b.Fatal(err)
		}
		t := 0.0
		for _, l := range strings.Split(s, "\r\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && (k == "used_cpu_sys" || k == "used_cpu_user") {
				f, _ := strconv.ParseFloat(v, 64)
				t += f
			}
		}
		return t
	}
	selfCPU := func() float64 {
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
	}
	var matches atomic.Int64
	b.SetParallelism(16)
	r0, s0 := redisCPU(), selfCPU()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		id := newMatch()
		for pb.Next() {
			st, pos, err := svc.Get(ctx, id)
			if err == nil && st.Status != match.StatusFinished {
				_, _, err = svc.SubmitPly(ctx, id, st.ToMove, st.NextPly(), pos.Legal()[0].String())
				if err == nil {
					continue
				}
			}
			id = newMatch()
			matches.Add(1)
		}
	})
	b.StopTimer()
	n := float64(b.N)
	b.ReportMetric((selfCPU()-s0)*1e3/n, "match-cpu-ms/op")
	b.ReportMetric((redisCPU()-r0)*1e3/n, "redis-cpu-ms/op")
	b.ReportMetric(float64(matches.Load())/n, "matches/op")
}
