package search

import (
	"context"
	"slices"
	"testing"
	"time"
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

func TestDeadline(t *testing.T) {
	t.Parallel()
	const budget = 40 * time.Millisecond
	// A loaded CI machine may run late, but never by this much.
	const slack = 400 * time.Millisecond
	cancelled, cancel := context.WithCancel(t.Context())
	cancel()
	tests := []struct {
		name     string
		ctx      context.Context
		timeout  time.Duration // a deadline on ctx, when not zero
		lim      Limits
		minDepth int
	}{
		{"budget", t.Context(), 0, Limits{Budget: budget}, 1},
		{"context deadline", t.Context(), budget, Limits{}, 1},
		{"cancelled", cancelled, 0, Limits{Budget: time.Hour}, 0},
		{"alpha-beta budget", t.Context(), 0, Limits{Budget: budget, Depth: 40}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx := tt.ctx
			if tt.timeout > 0 {
				var cancel context.CancelFunc
				ctx, cancel = context.WithTimeout(ctx, tt.timeout)
				defer cancel()
			}
			start := time.Now()
			var got Result[int]
			if tt.lim.Depth > 0 {
				got = AlphaBeta[endless, int](ctx, endlessGame{}, endless{}, tt.lim)
			} else {
				got = Iterative[endless, int](ctx, endlessGame{}, endless{}, tt.lim)
			}
			elapsed := time.Since(start)
			if elapsed > budget+slack {
				t.Errorf("took %s, budget %s", elapsed, budget)
			}
			if !got.Stopped || got.Legal != 10 || got.Move < 0 || got.Move > 9 || got.Depth < tt.minDepth {
				t.Errorf("got %+v, want stopped with a legal move after depth %d", got, tt.minDepth)
			}
		})
	}
}

// TestIterativeEqualsMinimaxOnTrees: on trees without transpositions and
// with pseudo-random leaf values, the iterative search (table,
// principal variation search with null windows) returns exactly the
// minimax score at every depth, and a move that scores it.
func TestIterativeEqualsMinimaxOnTrees(t *testing.T) {
	t.Parallel()
	maxDepth := 5
	if testing.Short() {
		maxDepth = 4
	}
	for _, root := range []uint64{0, 7, 12345, 1 << 40} {
		st := endless{root}
		for depth := 1; depth <= maxDepth; depth++ {
			var n int64
			want := minimax[endless, int](endlessGame{}, st, depth, 0, &n)
			got := Iterative[endless, int](t.Context(), endlessGame{}, st, Limits{Depth: depth})
			if got.Score != want || got.Depth != depth {
				t.Errorf("root %d depth %d: score %d at depth %d, minimax %d", root, depth, got.Score, got.Depth, want)
			}
			if v := minimaxChild[endless, int](endlessGame{}, st, got.Move, depth, 0, &n); v != want {
				t.Errorf("root %d depth %d: move %d scores %d, best is %d", root, depth, got.Move, v, want)
			}
		}
	}
}
