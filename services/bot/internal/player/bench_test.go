package player

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"syscall"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/quoridor"
	"tabuleiro.dev/services/bot/internal/search"
)

// quoridorMidgame is a Quoridor position after 16 plies: both pawns
// advanced, six walls placed.
const quoridorMidgame = "e2 e8 e3 e7 e4 e6 d3h e6h f5v c6v e5 d6 a5h b3v f5 d5"

func midgame(tb testing.TB) quoridor.Position {
	tb.Helper()
	return quoridorAfter(tb, quoridorMidgame)
}

// quoridorWallRace is a lost lab game's first 26 plies (the racer white,
// TestQuoridorLab's game 3): the racer has placed eight walls and holds
// two, its path 3 steps against the expert's 9, the expert holding nine.
// Its searches reach the wall endgames (one side without walls) that
// qState.wallEndgame plays out.
const quoridorWallRace = "e2 e8 e3 f8 e4 f7 e5 f6 e6 f5 f4h e5 d4h d5 c5v e5 h4h c8v d5h f5 f5h g5 b6h h5 b7v h6"

// quoridorAfter returns the standard position after plies.
func quoridorAfter(tb testing.TB, plies string) quoridor.Position {
	tb.Helper()
	p, err := quoridor.NewPosition("standard", "")
	if err != nil {
		tb.Fatal(err)
	}
	for _, s := range splitPlies(plies) {
		m, err := quoridor.ParseMove(s)
		if err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
		if p, err = p.PlayMove(m); err != nil {
			tb.Fatalf("%s: %v", s, err)
		}
	}
	if p.Outcome().Over() {
		tb.Fatal("the position is over")
	}
	return p
}

func splitPlies(s string) []string {
	var out []string
	start := -1
	for i := 0; i <= len(s); i++ {
		if i == len(s) || s[i] == ' ' {
			if start >= 0 {
				out = append(out, s[start:i])
			}
			start = -1
		} else if start < 0 {
			start = i
		}
	}
	return out
}

// BenchmarkQuoridorNodes measures the search speed of the expert's
// iterative deepening on the midgame position, in nodes per second.
func BenchmarkQuoridorNodes(b *testing.B) {
	st := newQState(midgame(b))
	g := qGame{walls: &reserveWalls}
	var nodes int64
	for b.Loop() {
		r := search.Iterative[qState, quoridor.Move](b.Context(), g, st, search.Limits{Depth: 3, TableBits: 18})
		nodes += r.Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// BenchmarkSelectQuoridor measures Select's latency per level on the
// midgame position with the level's default budget.
func BenchmarkSelectQuoridor(b *testing.B) {
	v := engine.View(midgame(b))
	for _, lvl := range Levels() {
		b.Run(lvl.String(), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(1, 2))
			var nodes, depth int64
			var worst time.Duration
			for b.Loop() {
				c, err := Select(b.Context(), v, lvl, lvl.DefaultBudget(), rng)
				if err != nil {
					b.Fatal(err)
				}
				nodes += c.Nodes
				depth += int64(c.Depth)
				worst = max(worst, c.Elapsed)
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
			b.ReportMetric(float64(depth)/float64(b.N), "depth")
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms")
		})
	}
}

// BenchmarkQuoridorExpertDepth measures the expert's search (its adapter and refinements,
// narrowed walls below the root) to a fixed depth on the midgame position:
// the time and nodes to finish depth 6, which the move ordering and the
// selection of walls decide; with threads=2 the time with a Lazy SMP
// helper (on an otherwise idle machine of two cores or more: its wall
// time to the depth against threads=1's is the helper's speed-up).
func BenchmarkQuoridorExpertDepth(b *testing.B) {
	for _, threads := range []int{1, 2} {
		b.Run(fmt.Sprintf("threads=%d", threads), func(b *testing.B) {
			st := newQState(midgame(b))
			g := expertQGame()
			var nodes int64
			cpu := cpuTime()
			for b.Loop() {
				r := search.Iterative[qState, quoridor.Move](b.Context(), g, st, search.Limits{Depth: 6, TableBits: 18, Threads: threads, Refinements: expertRefinements})
				nodes += r.Nodes
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(nodes)/(cpuTime()-cpu).Seconds(), "nodes/cpu-s")
		})
	}
}

// BenchmarkQuoridorExpertEval is BenchmarkQuoridorExpertDepth (one thread)
// for the lab's variants of the expert's evaluation (labExpert), so that a
// change's cost in positions a second is measured on the same search. Each
// search starts with an empty wall-gain cache (a real ply starts with the
// previous ply's), and nodes/cpu-s counts the processor time of the
// search's own thread (locked to it), not the garbage collector's.
func BenchmarkQuoridorExpertEval(b *testing.B) {
	benchmarkQuoridorEval(b, quoridorMidgame, []string{"warm-up", "today", "threat", "threat9", "threat6", "threat4", "threat3", "threat3f", "fade1", "force6", "pocket6", "pocket4", "fpocket6", "fpocket6m", "race2", "race2k2", "race3", "race4k2", "race2k2g2", "race2k2g3", "race4k2g3", "race4k1", "race2k2f", "race4k2u", "answer6", "answer3", "endgame"})
}

// BenchmarkQuoridorWallRaceEval is BenchmarkQuoridorExpertEval on a lost
// wall race (quoridorWallRace), where the searches reach wall endgames.
func BenchmarkQuoridorWallRaceEval(b *testing.B) {
	benchmarkQuoridorEval(b, quoridorWallRace, []string{"warm-up", "table", "today", "pairs"})
}

// benchmarkQuoridorEval searches the position after plies to depth 6 with
// each of the lab's variants.
func benchmarkQuoridorEval(b *testing.B, plies string, variants []string) {
	for _, v := range variants {
		b.Run(v, func(b *testing.B) {
			g, ok := labExpert(v)
			if !ok {
				g = expertQGame()
			}
			st := newQState(quoridorAfter(b, plies))
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var nodes int64
			var cpu time.Duration
			for b.Loop() {
				for i := range wallGainCache {
					wallGainCache[i].Store(0)
				}
				clear(endgames.e[:])
				for i := range bestWalls {
					bestWalls[i].Store(0)
				}
				start := threadCPUTime()
				r := search.Iterative[qState, quoridor.Move](b.Context(), g, st, search.Limits{Depth: 6, TableBits: 18, Refinements: expertRefinements})
				cpu += threadCPUTime() - start
				nodes += r.Nodes
			}
			b.ReportMetric(float64(nodes)/float64(b.N), "nodes/op")
			b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
			b.ReportMetric(float64(nodes)/cpu.Seconds(), "nodes/cpu-s")
		})
	}
}

// threadCPUTime is the processor time of the calling thread.
func threadCPUTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1 /* RUSAGE_THREAD */, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
