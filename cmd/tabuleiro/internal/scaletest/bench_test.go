package scaletest

import (
	"context"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
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

var benchTickets = flag.Int("tickets.n", 1000, "BenchmarkQueuedTickets: tickets queued")

// BenchmarkQueuedTickets measures Redis memory per queued ticket: INFO
// memory used_memory before and after N players queue, each alone in its
// own queue (distinct clocks) so that nothing pairs; this is the worst
// case, a queue's keys (its sorted set and hash, an entry in the set of
// queues) and the player's set of queues all counted per ticket.
//
//	go test -run '^$' -bench QueuedTickets -benchtime 1x ./cmd/tabuleiro/internal/scaletest/ -tickets.n 1000
func BenchmarkQueuedTickets(b *testing.B) {
	c := Start(b, Options{Lobbies: 1, Matches: 1})
	var lcs []*client.Client
	for range 4 {
		lc, err := client.Dial(c.LobbyAddrs[0])
		if err != nil {
			b.Fatal(err)
		}
		defer lc.Close()
		lcs = append(lcs, lc)
	}
	n := *benchTickets
	players := make([]client.Player, n)
	for i := range players {
		p, err := lcs[i%len(lcs)].SignIn(b.Context(), fmt.Sprintf("ticket-%d", i))
		if err != nil {
			b.Fatal(err)
		}
		players[i] = p
	}
	for b.Loop() {
		mem0 := usedMemory(b, c)
		ctx, cancel := context.WithCancel(b.Context())
		fs := make([]*finding, n)
		for i, p := range players {
			fs[i] = findMatch(ctx, lcs[i%len(lcs)], 0, p, 60_000+int64(i)*1000)
		}
		for _, f := range fs {
			select {
			case <-f.queued:
			case <-time.After(30 * time.Second):
				b.Fatal("not queued within 30s")
			}
			if f.ticket == "" {
				b.Fatalf("%s: not queued: %v", f.player.Name, f.err)
			}
		}
		mem1 := usedMemory(b, c)
		keys, _ := c.RDB().DBSize(b.Context()).Result()
		cancel() // each stream's end cancels its ticket
		for _, f := range fs {
			<-f.done
		}
		per := float64(mem1-mem0) / float64(n)
		fmt.Fprintf(os.Stderr, "queued tickets %d: used_memory %d -> %d bytes, %.0f B/ticket, %d keys\n", n, mem0, mem1, per, keys)
		b.ReportMetric(per, "redis-B/ticket")
	}
}
