package scaletest

import (
	"flag"
	"os"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/load"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

var (
	benchPlayers  = flag.Int("load.players", 2000, "BenchmarkCluster: simulated players")
	benchDuration = flag.Duration("load.duration", 15*time.Second, "BenchmarkCluster: queuing time")
	benchMatches  = flag.Int("load.matches", 3, "BenchmarkCluster: match instances")
	benchThink    = flag.Duration("load.think", 0, "BenchmarkCluster: each player's pause before a ply")
)

// BenchmarkCluster runs `tabuleiro load` against a 2-lobby, N-match, 2-bot
// cluster and reports plies/s, the ply round trip, Redis bytes per live
// game and match RSS per connected player. One iteration is one run:
//
//	go test -run '^$' -bench Cluster -benchtime 1x ./cmd/tabuleiro/internal/scaletest/ -load.players 4000
func BenchmarkCluster(b *testing.B) {
	c := Start(b, Options{Lobbies: 2, Matches: *benchMatches, Bots: 2})
	for b.Loop() {
		mem0 := usedMemory(b, c)
		var peakMem, peakRSS int64
		var peakLive int64
		done := make(chan struct{})
		stopped := make(chan struct{})
		go func() { // sampled once a second while the run lasts
			defer close(stopped)
			tk := time.NewTicker(time.Second)
			defer tk.Stop()
			for {
				select {
				case <-done:
					return
				case <-tk.C:
				}
				peakMem = max(peakMem, usedMemory(b, c)-mem0)
				var rss int64
				for _, m := range c.Match {
					rss += m.RSS()
				}
				peakRSS = max(peakRSS, rss)
			}
		}()
		rep, err := load.Run(b.Context(), load.Config{
			Lobby: c.LobbyAddrs, Match: c.MatchAddrs, Players: *benchPlayers, Duration: *benchDuration, Drain: 10 * time.Second,
			Think: *benchThink, Wander: 200, TimeControl: &gamev1.TimeControl{BaseMs: 3_600_000}, Progress: os.Stderr,
		})
		close(done)
		<-stopped
		if err != nil {
			b.Fatal(err)
		}
		peakLive = rep.PeakLive
		rep.Write(os.Stderr)
		b.ReportMetric(rep.PliesPerSecond(), "plies/s")
		b.ReportMetric(float64(rep.PlyRTT.P99.Microseconds())/1000, "p99-ms")
		b.ReportMetric(float64(peakLive), "peak-games")
		if peakLive > 0 {
			b.ReportMetric(float64(peakMem)/float64(peakLive), "redis-B/game")
			b.ReportMetric(float64(peakRSS)/float64(2*peakLive), "match-RSS-B/player")
		}
	}
}

func usedMemory(b *testing.B, c *Cluster) int64 {
	v, err := c.RDB().Info(b.Context(), "memory").Result()
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range splitLines(v) {
		if len(line) > 12 && line[:12] == "used_memory:" {
			var n int64
			for _, ch := range line[12:] {
				if ch >= '0' && ch <= '9' {
					n = n*10 + int64(ch-'0')
				}
			}
			return n
		}
	}
	return 0
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
