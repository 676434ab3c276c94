package scaletest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

var (
	idleSeconds = flag.Int("idle.seconds", 10, "BenchmarkIdleInstances: seconds measured")
	idlePerf    = flag.String("idle.perf", "", "BenchmarkIdleInstances: record the first match instance with perf into this file")
)

// BenchmarkIdleInstances measures what each kind of process costs with no
// load at all (sweepers, presence, heartbeats, the runtime): processor
// milliseconds per second, per process. A cost that each instance pays
// whatever the load is a cost per ply that grows with the number of
// instances. One iteration is one run:
//
//	go test -run '^$' -bench IdleInstances -benchtime 1x ./cmd/tabuleiro/internal/scaletest/ -load.matches 3
func BenchmarkIdleInstances(b *testing.B) {
	c := Start(b, Options{Lobbies: 2, Matches: *benchMatches, Bots: 2})
	for b.Loop() {
		time.Sleep(2 * time.Second) // past the start
		cmds0 := commandCalls(b, c)
		cpu0 := c.CPU()
		each0 := make([]time.Duration, len(c.Match))
		for i, m := range c.Match {
			each0[i] = m.CPU()
		}
		d := time.Duration(*idleSeconds) * time.Second
		if *idlePerf != "" {
			out, err := exec.Command("perf", "record", "-F", "999", "-g", "-o", *idlePerf, "-p", strconv.Itoa(c.Match[0].Pid()),
				"--", "sleep", strconv.Itoa(*idleSeconds)).CombinedOutput()
			if err != nil {
				b.Fatalf("perf record: %v\n%s", err, out)
			}
		} else {
			time.Sleep(d)
		}
		cpu := c.CPU()
		for i, m := range c.Match {
			fmt.Fprintf(os.Stderr, "match-%d: %.2f ms/s\n", i, float64((m.CPU()-each0[i]).Microseconds())/1000/d.Seconds())
		}
		cmds := commandCalls(b, c)
		per := func(t time.Duration, n int) float64 {
			return float64(t.Microseconds()) / 1000 / d.Seconds() / float64(max(n, 1))
		}
		var calls int64
		for name, n := range cmds {
			calls += n - cmds0[name]
		}
		fmt.Fprintf(os.Stderr, "idle CPU ms/s per process: match %.2f, lobby %.2f, bot %.2f, redis %.2f; Redis commands/s %.1f\n",
			per(cpu.Match-cpu0.Match, len(c.Match)), per(cpu.Lobby-cpu0.Lobby, len(c.Lobby)), per(cpu.Bot-cpu0.Bot, len(c.Bot)),
			per(cpu.Redis-cpu0.Redis, 1), float64(calls)/d.Seconds())
		b.ReportMetric(per(cpu.Match-cpu0.Match, len(c.Match)), "match-cpu-ms/s")
		b.ReportMetric(float64(calls)/d.Seconds(), "redis-cmds/s")
	}
}
