package search

import (
	"context"
	"slices"
	"time"
)

// Analysis is what Analyse found about one ply played at a position.
type Analysis[M comparable] struct {
	// Best is the search's best move and BestScore its score for the side
	// to move; Played is the played move's score at the same depth (equal
	// to BestScore when the played move is Best).
	Best      M
	BestScore int
	Played    int
	// Line is the principal variation from Best on, as the transposition
	// table holds it: Best first, ending before a random ply's result or
	// where the table has no move (at most MaxLine moves).
	Line []M
	// Depth is the depth both scores were searched to; Nodes the positions
	// visited in all; Legal the number of legal moves.
	Depth int
	Nodes int64
	Legal int
	// Found reports that isPlayed matched a legal move.
	Found bool
}

// MaxLine is the longest line Analyse returns.
const MaxLine = 6

// Analyse judges the move played at st (the first legal move for which
// isPlayed is true): it searches st by iterative deepening as Iterative
// does, within lim (set lim.Nodes for a result that does not depend on the
// machine: lim.Threads and lim.Shuffle are ignored), then searches the best
// move and the played one again with a full window at the depth the
// search last completed, on the same transposition table, so that their
// two scores are of the same depth and comparable. A played move that is
// not legal, or a position with no legal move, gives Legal 0 or a played
// score of the best's (played == best).
func Analyse[S any, M comparable, G Game[S, M]](ctx context.Context, g G, st S, lim Limits, isPlayed func(M) bool) Analysis[M] {
	start := time.Now()
	lim.Threads, lim.Shuffle = 0, nil
	tt := newTable[M](lim.TableBits)
	depth := lim.Depth
	if depth <= 0 || depth > MaxDepth {
		depth = MaxDepth
	}
	s := newIterative(ctx, g, lim, start, tt)
	r := s.deepen(&st, depth, start)
	a := Analysis[M]{Best: r.Move, BestScore: r.Score, Played: r.Score, Depth: r.Depth, Legal: r.Legal}
	if r.Legal == 0 || s.ctx.Err() != nil {
		a.Nodes = s.nodes
		return a
	}
	moves := slices.Clone(g.Moves(&st, nil))
	played, found := r.Move, false
	for _, m := range moves {
		if isPlayed(m) {
			played, found = m, true
			break
		}
	}
	a.Found = found
	// Both moves again at the depth completed: with the table full of this
	// search the best's score comes at once and the played one's costs
	// little more. A node allowance as large as the search's own bounds
	// them; past it, one ply shallower.
	d := max(r.Depth, 1)
	for ; d >= 1; d-- {
		s.stopped = false
		if lim.Nodes > 0 {
			s.maxNodes = s.nodes + lim.Nodes
		}
		s.deadline = time.Time{}
		best := s.child(&st, r.Move, d, -inf, inf, 0)
		v := best
		if found && played != r.Move && !s.stopped {
			v = s.child(&st, played, d, -inf, inf, 0)
		}
		if s.stopped && d > 1 {
			continue
		}
		if s.stopped { // depth 1 cannot run out of nodes but for a context's end
			break
		}
		a.BestScore, a.Played, a.Depth = best, v, d
		if v > best {
			// The played move proved at least as good at this depth.
			a.Best, a.BestScore = played, v
		}
		break
	}
	a.Line = s.line(&st, a.Best)
	a.Nodes = s.nodes
	return a
}

// line follows the transposition table from st, first move first: each
// next move is the table's for the position reached, if it is legal there.
// It stops before a random ply's result, at a finished game, or at MaxLine.
func (s *searcher[S, M, G]) line(st *S, first M) []M {
	out := []M{first}
	cur := *st
	m := first
	for len(out) < MaxLine {
		if s.chance != nil && len(s.chance.Outcomes(&cur, m, nil)) > 0 {
			break
		}
		cur = s.g.Play(&cur, m)
		if _, over := s.g.Terminal(&cur); over {
			break
		}
		e, ok := s.tt.probe(s.g.Hash(&cur))
		if !ok || !slices.Contains(s.g.Moves(&cur, nil), e.move) {
			break
		}
		m = e.move
		out = append(out, m)
	}
	// A line ending on a random ply is kept: the ply itself is known, its
	// result is not.
	return out
}
