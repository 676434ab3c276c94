package review

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/games"
	"tabuleiro.dev/services/bot/internal/player"
)

// cpuTime is the processor time this process has used: on a busy
// machine the wall time of a review on a core of its own.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// selfPlay plays n plies (fewer if the game ends) of the medium level
// against itself (Quoridor: random plies) from game g's start (Banqi: the layout of seed 60), as a
// record gives them.
func selfPlay(tb testing.TB, g engine.Game, variant string, n int) Game {
	return play(tb, g, variant, n, 60, g == engine.Quoridor)
}

// play plays n plies (fewer if the game ends) of the medium level against
// itself, or random plies, from seed.
func play(tb testing.TB, g engine.Game, variant string, n int, seed uint64, random bool) Game {
	tb.Helper()
	setup := ""
	if g == engine.Banqi {
		setup = banqi.LayoutFromSeed([32]byte{byte(seed), byte(seed >> 8)}).String()
	}
	pos, err := games.New(g, variant, setup)
	if err != nil {
		tb.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(seed, 60))
	out := Game{Game: g, Variant: variant}
	for len(out.Plies) < n && !pos.Outcome().Over() {
		var ply engine.Ply
		if random {
			// Medium's Quoridor games end in some 15 plies, easy's in 25:
			// random plies, walls among them, last longer.
			legal := pos.Legal()
			ply = legal[rng.IntN(len(legal))]
		} else {
			c, err := player.Select(context.Background(), pos.View(pos.ToMove()), player.Medium, time.Second, rng)
			if err != nil {
				tb.Fatal(err)
			}
			ply = c.Ply
		}
		next, err := pos.Play(ply)
		if err != nil {
			tb.Fatal(err)
		}
		p := Ply{Notation: ply.String()}
		if bp, ok := next.(banqi.Position); ok {
			if m, _ := banqi.ParseMove(p.Notation); m.Kind() == banqi.KindReveal {
				p.Revealed = bp.PieceAt(m.From())
			}
		}
		out.Plies = append(out.Plies, p)
		pos = next
	}
	return out
}

// BenchmarkReview60 reviews a 60-ply game of each game (the medium level
// against itself; Quoridor random plies) at the default budget, on one goroutine: ns/op is the
// review's wall time, cpu-s/op its processor time (the wall time on a
// core of its own); depth/ply the mean depth the plies were compared at.
//
//	go test -run '^$' -bench BenchmarkReview60 -benchtime 1x -cpu 1 ./services/bot/internal/review
func BenchmarkReview60(b *testing.B) {
	for _, tt := range []struct {
		game    engine.Game
		variant string
	}{{engine.Quoridor, "standard"}, {engine.Corners, "classic-3x3"}, {engine.Banqi, "standard"}} {
		b.Run(string(tt.game), func(b *testing.B) {
			g := selfPlay(b, tt.game, tt.variant, 60)
			b.ResetTimer()
			var depth, plies, nodes int64
			cpu0 := cpuTime()
			for b.Loop() {
				r, err := Run(context.Background(), g, 0, nil)
				if err != nil {
					b.Fatal(err)
				}
				for _, p := range r.Plies {
					depth += int64(p.Depth)
					nodes += p.Nodes
					plies++
				}
			}
			b.ReportMetric((cpuTime()-cpu0).Seconds()/float64(b.N), "cpu-s/op")
			b.ReportMetric(float64(len(g.Plies)), "plies")
			b.ReportMetric(float64(depth)/float64(plies), "depth/ply")
			b.ReportMetric(float64(nodes)/float64(plies), "nodes/ply")
		})
	}
}
