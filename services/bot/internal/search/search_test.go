package search

import (
	"context"
	"slices"
	"testing"
	"testing/synctest"
	"time"
	"unsafe"
)

var tttPositions = []string{
	".........",
	"x...o....",
	"xo..x....", // o to move must block at i (8)
	"xx.oo....", // x to move wins at c (2)
	"x.o.o.x..",
	"xoxoxo...",
}

func TestAlphaBetaEqualsMinimax(t *testing.T) {
	t.Parallel()
	for _, pos := range tttPositions {
		st := tttFrom(pos)
		for depth := 1; depth <= 9; depth++ {
			var mmNodes int64
			want := minimax[ttt, int](tttGame{}, st, depth, 0, &mmNodes)
			got := AlphaBeta[ttt, int](t.Context(), tttGame{}, st, Limits{Depth: depth})
			if got.Score != want {
				t.Errorf("%s depth %d: score %d, minimax %d", pos, depth, got.Score, want)
			}
			var n int64
			if v := minimaxChild[ttt, int](tttGame{}, st, got.Move, depth, 0, &n); v != want {
				t.Errorf("%s depth %d: move %d scores %d, best is %d", pos, depth, got.Move, v, want)
			}
			if got.Stopped || got.Nodes <= 0 {
				t.Errorf("%s depth %d: stopped %v, nodes %d", pos, depth, got.Stopped, got.Nodes)
			}
			if got.Depth > depth || (got.Depth < depth && got.Score > -WinBound && got.Score < WinBound) {
				t.Errorf("%s depth %d: completed depth %d", pos, depth, got.Depth)
			}
		}
	}
}

func TestAlphaBetaPrunes(t *testing.T) {
	t.Parallel()
	st := tttFrom(".........")
	var mmNodes int64
	minimax[ttt, int](tttGame{}, st, 9, 0, &mmNodes)
	ab := AlphaBeta[ttt, int](t.Context(), tttGame{}, st, Limits{Depth: 9})
	it := Iterative[ttt, int](t.Context(), tttGame{}, st, Limits{Depth: 9})
	if ab.Nodes*4 > mmNodes {
		t.Errorf("alpha-beta visited %d nodes, minimax %d: want under a quarter", ab.Nodes, mmNodes)
	}
	if it.Nodes >= ab.Nodes {
		t.Errorf("iterative with table visited %d nodes, alpha-beta without %d: want fewer", it.Nodes, ab.Nodes)
	}
	if ab.Score != 0 || it.Score != 0 || ab.Depth != 9 || it.Depth != 9 {
		t.Errorf("tic-tac-toe is a draw at depth 9: alpha-beta %+v, iterative %+v", ab, it)
	}
}

func TestIterativeSolves(t *testing.T) {
	t.Parallel()
	for _, pos := range tttPositions {
		st := tttFrom(pos)
		var n int64
		want := minimax[ttt, int](tttGame{}, st, 9, 0, &n)
		got := Iterative[ttt, int](t.Context(), tttGame{}, st, Limits{})
		if got.Score != want {
			t.Errorf("%s: score %d, minimax %d", pos, got.Score, want)
		}
		if v := minimaxChild[ttt, int](tttGame{}, st, got.Move, 9, 0, &n); v != want {
			t.Errorf("%s: move %d scores %d, best is %d", pos, got.Move, v, want)
		}
	}
}

// Nim: a position is lost for the side to move exactly when the heaps'
// XOR is zero, and a winning move leaves a zero XOR.
func TestIterativeNim(t *testing.T) {
	t.Parallel()
	for a := range 4 {
		for b := range 4 {
			for c := range 5 {
				st := nim{[3]int{a, b, c}}
				if st.heaps == [3]int{} {
					continue
				}
				got := Iterative[nim, nimMove](t.Context(), nimGame{}, st, Limits{})
				after := nimGame{}.Play(&st, got.Move)
				x := after.heaps[0] ^ after.heaps[1] ^ after.heaps[2]
				switch {
				case a^b^c != 0 && (got.Score < WinBound || x != 0):
					t.Errorf("%v: winning, got %+v leaving %v", st.heaps, got, after.heaps)
				case a^b^c == 0 && got.Score > -WinBound:
					t.Errorf("%v: lost, got score %d", st.heaps, got.Score)
				}
			}
		}
	}
}

func TestExpectimaxEqualsOracle(t *testing.T) {
	t.Parallel()
	for heap := 1; heap <= 9; heap++ {
		st := dice{heap}
		for depth := 1; depth <= heap; depth++ {
			var n int64
			want := minimax[dice, int](diceGame{}, st, depth, 0, &n)
			got := AlphaBeta[dice, int](t.Context(), diceGame{}, st, Limits{Depth: depth})
			if got.Score != want {
				t.Errorf("heap %d depth %d: score %d, oracle %d", heap, depth, got.Score, want)
			}
		}
		var n int64
		want := minimax[dice, int](diceGame{}, st, heap, 0, &n)
		got := Iterative[dice, int](t.Context(), diceGame{}, st, Limits{Depth: heap})
		if v := minimaxChild[dice, int](diceGame{}, st, got.Move, heap, 0, &n); v != want {
			t.Errorf("heap %d: iterative chose %d scoring %d, best %d", heap, got.Move, v, want)
		}
	}
}

// TestStar1EqualsOracle: with bounds that every score respects (a width
// of three wins), Star1's cut-offs and narrowed windows change no score of
// the exact expectimax (searched without a table, whose scores of a dice
// heap depend on the ply it is reached at), and iterative deepening with
// them chooses a best move.
func TestStar1EqualsOracle(t *testing.T) {
	t.Parallel()
	ref := Refinements{ChanceWidth: 3 * Win}
	for heap := 1; heap <= 10; heap++ {
		st := dice{heap}
		for depth := 1; depth <= heap; depth++ {
			var n int64
			want := minimax[dice, int](diceGame{}, st, depth, 0, &n)
			s := newSearcher[dice, int](t.Context(), diceGame{}, Limits{}, time.Now())
			s.ref = ref
			if got := s.negamax(&st, depth, -inf, inf, 0); got != want {
				t.Errorf("heap %d depth %d: score %d, oracle %d", heap, depth, got, want)
			}
			r := Iterative[dice, int](t.Context(), diceGame{}, st, Limits{Depth: depth, Refinements: ref})
			if v := minimaxChild[dice, int](diceGame{}, st, r.Move, depth, 0, &n); v != want {
				t.Errorf("heap %d depth %d: iterative chose %d scoring %d, best %d", heap, depth, r.Move, v, want)
			}
		}
	}
}

// TestStar1Prunes: far from the end of dice Nim every score lies in the
// evaluation's range (-90 to 60), so a width of 150 bounds every result
// tightly; Star1 then cuts chance nodes off, searching fewer nodes, and
// still finds the exact expectimax score.
func TestStar1Prunes(t *testing.T) {
	t.Parallel()
	var plain, pruned int64
	for heap := 30; heap <= 40; heap++ {
		st := dice{heap}
		for depth := 1; depth <= 5; depth++ {
			var n int64
			want := minimax[dice, int](diceGame{}, st, depth, 0, &n)
			s := newSearcher[dice, int](t.Context(), diceGame{}, Limits{}, time.Now())
			if got := s.negamax(&st, depth, -inf, inf, 0); got != want {
				t.Fatalf("heap %d depth %d: expectimax %d, oracle %d", heap, depth, got, want)
			}
			plain += s.nodes
			s = newSearcher[dice, int](t.Context(), diceGame{}, Limits{}, time.Now())
			s.ref.ChanceWidth = 150
			if got := s.negamax(&st, depth, -inf, inf, 0); got != want {
				t.Errorf("heap %d depth %d: Star1 %d, oracle %d", heap, depth, got, want)
			}
			pruned += s.nodes
		}
	}
	if pruned >= plain {
		t.Errorf("Star1 searched %d nodes, plain expectimax %d: nothing pruned", pruned, plain)
	}
	t.Logf("nodes: Star1 %d, expectimax %d", pruned, plain)
}

func TestRank(t *testing.T) {
	t.Parallel()
	st := tttFrom("xx.oo....")
	r := Rank[ttt, int](t.Context(), tttGame{}, st)
	if len(r) != 5 || r[0].Move != 2 || r[0].Score < WinBound {
		t.Fatalf("Rank = %v, want the win at 2 first", r)
	}
	if !slices.IsSortedFunc(r, func(a, b Scored[int]) int { return b.Score - a.Score }) {
		t.Errorf("Rank not sorted: %v", r)
	}
}

// slowEndless is the endless game where every evaluation takes cost of
// the clock: run inside a synctest bubble, where the clock is fake and
// moves only while every goroutine sleeps, a search then sees exactly the
// same time at every node whatever the machine's speed. It records the
// root moves whose results it evaluated.
type slowEndless struct {
	endlessGame
	cost time.Duration
	root endless
	seen *[]int // root moves evaluated at depth 1, in order
}

func (g slowEndless) Eval(p *endless) int {
	time.Sleep(g.cost)
	for m := range 10 {
		if g.endlessGame.Play(&g.root, m) == *p && !slices.Contains(*g.seen, m) {
			*g.seen = append(*g.seen, m)
		}
	}
	return g.endlessGame.Eval(p)
}

// TestDeadline: whatever the deadline (a budget, the context's deadline,
// one that falls inside the first iteration, one already passed, a
// cancelled context), the search stops by it and returns a legal move: the
// best of the deepest iteration it finished, or, when depth 1 did not
// finish, the best of the moves it evaluated, or with none evaluated the
// first of the Order hook. Each evaluation costs 1 ms of a fake clock
// (testing/synctest), so the outcome does not depend on the machine.
func TestDeadline(t *testing.T) {
	t.Parallel()
	const cost = time.Millisecond
	tests := []struct {
		name      string
		timeout   time.Duration // a deadline on the context, when not zero
		cancelled bool
		lim       Limits
		alphaBeta bool
		depth     int // the depth the search must have completed
		evaluated int // at least this many root moves evaluated at depth 1
	}{
		// 40 ms less the margin leaves 37 ms: depth 1 (10 ms) finishes,
		// depth 2 (100 leaves, pruned to no fewer than 19) does not.
		{name: "budget", lim: Limits{Budget: 40 * time.Millisecond}, depth: 1, evaluated: 10},
		{name: "alpha-beta budget", lim: Limits{Budget: 40 * time.Millisecond, Depth: 40}, alphaBeta: true, depth: 1, evaluated: 10},
		// 40 ms less the caller's margin (8 ms) leaves 32 ms.
		{name: "context deadline", timeout: 40 * time.Millisecond, depth: 1, evaluated: 10},
		// 6 ms less the margin leaves 4.7 ms: depth 1 stops after a few moves.
		{name: "budget inside depth 1", lim: Limits{Budget: 6 * time.Millisecond}, depth: 0, evaluated: 3},
		{name: "alpha-beta budget inside depth 1", lim: Limits{Budget: 6 * time.Millisecond, Depth: 3}, alphaBeta: true, depth: 0, evaluated: 3},
		{name: "deadline already passed", timeout: time.Nanosecond, lim: Limits{Budget: time.Hour}, depth: 0},
		{name: "cancelled", cancelled: true, lim: Limits{Budget: time.Hour}, depth: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			synctest.Test(t, func(t *testing.T) {
				ctx := t.Context()
				if tt.cancelled {
					c, cancel := context.WithCancel(ctx)
					cancel()
					ctx = c
				}
				if tt.timeout > 0 {
					c, cancel := context.WithTimeout(ctx, tt.timeout)
					defer cancel()
					ctx = c
				}
				tt.lim.CheckEvery = 1
				var seen []int
				g := slowEndless{cost: cost, root: endless{}, seen: &seen}
				start := time.Now()
				var got Result[int]
				if tt.alphaBeta {
					got = AlphaBeta[endless, int](ctx, g, endless{}, tt.lim)
				} else {
					got = Iterative[endless, int](ctx, g, endless{}, tt.lim)
				}
				elapsed := time.Since(start)
				limit := tt.lim.Budget
				if tt.timeout > 0 || tt.cancelled {
					limit = tt.timeout
				}
				// Fake time: the search may overrun its deadline by at most
				// the one evaluation in progress when it passed.
				if elapsed > limit+cost {
					t.Errorf("took %s with a limit of %s", elapsed, limit)
				}
				if !got.Stopped || got.Legal != 10 || got.Move < 0 || got.Move > 9 || got.Depth != tt.depth {
					t.Fatalf("got %+v, want stopped with a legal move after depth %d", got, tt.depth)
				}
				if len(seen) < tt.evaluated {
					t.Errorf("evaluated root moves %v, want at least %d", seen, tt.evaluated)
				}
				switch {
				case got.Depth == 0 && len(seen) > 0:
					// Depth 1 did not finish: the best of the moves it
					// evaluated (a move's score is minus its result's
					// evaluation).
					best := seen[0]
					for _, m := range seen {
						if -evalAfter(m) > -evalAfter(best) {
							best = m
						}
					}
					if got.Move != best {
						t.Errorf("move %d, want %d, the best of the evaluated %v", got.Move, best, seen)
					}
				case got.Depth == 0:
					if got.Move != 0 {
						t.Errorf("move %d with nothing evaluated, want 0, the first of the Order hook", got.Move)
					}
				}
			})
		})
	}
}

// evalAfter is the evaluation, for the side to move there, of the
// endless game's position after root move m.
func evalAfter(m int) int {
	var g endlessGame
	root := endless{}
	next := g.Play(&root, m)
	return g.Eval(&next)
}

// TestIterativeEqualsMinimaxOnTrees: on trees without transpositions and
// with pseudo-random leaf values, the iterative search (table,
// principal variation search with null windows) returns exactly the
// minimax score at every depth, and a move that scores it; so do the
// exact refinements (killers, the root's null windows).
func TestIterativeEqualsMinimaxOnTrees(t *testing.T) {
	t.Parallel()
	maxDepth := 5
	if testing.Short() {
		maxDepth = 4
	}
	for _, threads := range []int{1, 2, 3} {
		for _, ref := range []Refinements{{}, {RootPVS: true}, {RootPVS: true, Killers: true}} {
			for _, root := range []uint64{0, 7, 12345, 1 << 40} {
				st := endless{root}
				for depth := 1; depth <= maxDepth; depth++ {
					var n int64
					want := minimax[endless, int](endlessGame{}, st, depth, 0, &n)
					got := Iterative[endless, int](t.Context(), endlessGame{}, st, Limits{Depth: depth, Refinements: ref, Threads: threads})
					if got.Score != want || got.Depth != depth {
						t.Errorf("%d threads, %+v root %d depth %d: score %d at depth %d, minimax %d", threads, ref, root, depth, got.Score, got.Depth, want)
					}
					if v := minimaxChild[endless, int](endlessGame{}, st, got.Move, depth, 0, &n); v != want {
						t.Errorf("%d threads, %+v root %d depth %d: move %d scores %d, best is %d", threads, ref, root, depth, got.Move, v, want)
					}
				}
			}
		}
	}
}

// TestLazySMP: helper threads search beside the main one on a shared
// table (their positions count in Nodes), stop when it stops, and a
// budget-limited search with helpers still returns a legal move from a
// finished iteration; a node-limited search ignores Threads, so it repeats
// exactly.
func TestLazySMP(t *testing.T) {
	t.Parallel()
	one := Iterative[endless, int](t.Context(), endlessGame{}, endless{3}, Limits{Depth: 5})
	// A helper that the scheduler starts only after the main search has
	// ended searches nothing (on a loaded machine a 0.05 s search can end
	// first), so the helper's positions are wanted in one of several tries.
	var two Result[int]
	for try := 0; try < 50; try++ {
		two = Iterative[endless, int](t.Context(), endlessGame{}, endless{3}, Limits{Depth: 5, Threads: 2})
		if two.Nodes > one.Nodes {
			break
		}
	}
	if two.Nodes <= one.Nodes {
		t.Errorf("depth 5: %d nodes with a helper, %d alone, in 50 tries: want the helper's counted too", two.Nodes, one.Nodes)
	}
	if two.Move != one.Move || two.Score != one.Score || two.Depth != 5 {
		t.Errorf("depth 5: %+v with a helper, %+v alone", two, one)
	}
	// A budget ends the threaded search with a legal move, whether depth 1
	// finished in it or not (on a loaded machine it may not: the test once
	// got Depth 0 after 43 ms under the race detector).
	timed := Iterative[endless, int](t.Context(), endlessGame{}, endless{3}, Limits{Budget: 30 * time.Millisecond, Threads: 2})
	if timed.Legal != 10 || timed.Move < 0 || timed.Move >= 10 || !timed.Stopped {
		t.Errorf("budget 30 ms, 2 threads: %+v, want a legal move (0-9) and Stopped", timed)
	}
	lim := Limits{Nodes: 5000, CheckEvery: 64, Threads: 2}
	a := Iterative[endless, int](t.Context(), endlessGame{}, endless{}, lim)
	b := Iterative[endless, int](t.Context(), endlessGame{}, endless{}, lim)
	a.Elapsed, b.Elapsed = 0, 0
	if a != b || a.Nodes > 5000+64 {
		t.Errorf("node limit 5000 with Threads 2: %+v then %+v, want one thread's exact repeat", a, b)
	}
}

// TestEntrySize: a table entry with a 2-byte move takes 16 bytes, four to a
// cache line.
func TestEntrySize(t *testing.T) {
	t.Parallel()
	if n := unsafe.Sizeof(entry[uint16]{}); n != 16 {
		t.Errorf("entry[uint16] takes %d bytes, want 16", n)
	}
}

// TestNodeLimit: a node limit stops an endless game's search within a
// clock check of the limit, with a legal move and the same result every
// time (it does not depend on the clock).
func TestNodeLimit(t *testing.T) {
	t.Parallel()
	lim := Limits{Nodes: 5000, CheckEvery: 64}
	r := Iterative[endless, int](t.Context(), endlessGame{}, endless{}, lim)
	if !r.Stopped || r.Nodes < 5000 || r.Nodes > 5000+64 {
		t.Errorf("node limit 5000: stopped %v after %d nodes", r.Stopped, r.Nodes)
	}
	if r.Legal == 0 || r.Depth == 0 {
		t.Errorf("node limit 5000: %+v, want a move from a finished depth", r)
	}
	again := Iterative[endless, int](t.Context(), endlessGame{}, endless{}, lim)
	if again.Move != r.Move || again.Score != r.Score || again.Nodes != r.Nodes || again.Depth != r.Depth {
		t.Errorf("node limit 5000: %+v then %+v", r, again)
	}
}

// boundedEndless is endlessGame evaluating within the window
// (search.Bounded): beyond it, only the window's edge.
type boundedEndless struct {
	endlessGame
	calls *int
}

func (g boundedEndless) EvalWithin(p *endless, alpha, beta int) int {
	*g.calls++
	return min(max(g.Eval(p), alpha), beta)
}

// TestBoundedEvalAtLeaves: a Bounded game's leaves are evaluated with
// EvalWithin, and its bounds give the same scores and moves as Eval.
func TestBoundedEvalAtLeaves(t *testing.T) {
	t.Parallel()
	for n := range uint64(20) {
		st := endless{n}
		calls := 0
		for depth := 1; depth <= 4; depth++ {
			want := AlphaBeta[endless, int](t.Context(), endlessGame{}, st, Limits{Depth: depth})
			got := AlphaBeta[endless, int](t.Context(), boundedEndless{calls: &calls}, st, Limits{Depth: depth})
			if got.Score != want.Score || got.Move != want.Move {
				t.Errorf("%d depth %d: bounded %d (%d), Eval %d (%d)", n, depth, got.Move, got.Score, want.Move, want.Score)
			}
			wantIt := Iterative[endless, int](t.Context(), endlessGame{}, st, Limits{Depth: depth, Refinements: Refinements{Killers: true, Reduce: 3}})
			gotIt := Iterative[endless, int](t.Context(), boundedEndless{calls: &calls}, st, Limits{Depth: depth, Refinements: Refinements{Killers: true, Reduce: 3}})
			if gotIt.Score != wantIt.Score {
				t.Errorf("%d depth %d: iterative bounded %d, Eval %d", n, depth, gotIt.Score, wantIt.Score)
			}
		}
		if calls == 0 {
			t.Fatal("EvalWithin never called")
		}
	}
}

// quietEndless is endlessGame whose leaves report extra positions
// (search.Quiescent): each leaf claims a quiescence search of extra
// positions.
type quietEndless struct {
	endlessGame
	extra  int64
	leaves *int64
}

func (g quietEndless) LeafWithin(p *endless, alpha, beta int) (int, int64) {
	*g.leaves++
	return g.Eval(p), g.extra
}

// TestQuiescentNodesCounted: a Quiescent game's leaves are evaluated with
// LeafWithin, the positions they report are counted as the search's, and
// a node limit charges them.
func TestQuiescentNodesCounted(t *testing.T) {
	t.Parallel()
	var leaves int64
	plain := AlphaBeta[endless, int](t.Context(), endlessGame{}, endless{3}, Limits{Depth: 3})
	q := AlphaBeta[endless, int](t.Context(), quietEndless{extra: 5, leaves: &leaves}, endless{3}, Limits{Depth: 3})
	if leaves == 0 || q.Nodes != plain.Nodes+5*leaves || q.Score != plain.Score || q.Move != plain.Move {
		t.Errorf("%d leaves: %d nodes (%d, %d), plain %d (%d, %d)", leaves, q.Nodes, q.Move, q.Score, plain.Nodes, plain.Move, plain.Score)
	}
	lim := Limits{Nodes: 5000, CheckEvery: 64}
	r := Iterative[endless, int](t.Context(), quietEndless{extra: 7, leaves: &leaves}, endless{}, lim)
	if !r.Stopped || r.Nodes < 5000 || r.Nodes > 5000+64+7 {
		t.Errorf("node limit 5000: stopped %v after %d nodes", r.Stopped, r.Nodes)
	}
}

// extendAll is tic-tac-toe with every move Extending by a ply.
type extendAll struct{ tttGame }

func (extendAll) Extend(parent, child *ttt, m int) int { return 1 }

// TestExtensionsSearchDeeper: X to move must block O's row (cell 5, a
// depth-2 search's choice). A depth-1 search, which sees no reply, plays
// the corner (0); with one ply of
// extension below every move it sees O's win and blocks. Without
// Refinements.Extensions the Extending game is searched as any other.
func TestExtensionsSearchDeeper(t *testing.T) {
	st := tttFrom(".x.oo..x.")
	plain := Iterative[ttt, int](context.Background(), extendAll{}, st, Limits{Depth: 1})
	if plain.Move == 5 {
		t.Fatalf("depth 1 without extensions blocks already (%+v): the test needs a position it misses", plain)
	}
	ext := Iterative[ttt, int](context.Background(), extendAll{}, st, Limits{Depth: 1, Refinements: Refinements{Extensions: 1}})
	if ext.Move != 5 {
		t.Fatalf("depth 1 with a ply of extension: %+v, want the block at 5", ext)
	}
	if ext.Nodes <= plain.Nodes {
		t.Fatalf("the extended search visited %d positions, the plain one %d", ext.Nodes, plain.Nodes)
	}
}
