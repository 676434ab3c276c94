package search

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"time"
)

// searcher is the state of one search. It is used by one goroutine.
type searcher[S any, M comparable, G Game[S, M]] struct {
	ctx     context.Context
	g       G
	chance  Chancy[S, M]    // nil when the game has no random plies
	bounded Bounded[S]      // nil when the game evaluates without a window
	quiet   Quiescent[S]    // nil when the leaves do not search on
	extend  Extending[S, M] // nil when no move is searched deeper
	// iterDepth is the depth of the root's current iteration: with
	// ply+depth it tells how many plies a line has been extended.
	iterDepth int
	deadline  time.Time // zero: only the context stops the search
	mask      int64
	nodes     int64
	maxNodes  int64 // 0: no limit
	stopped   bool
	tt        *table[M] // nil: no transposition table
	shuffle   *rand.Rand
	moves     [][]M
	outs      [][]Outcome[S]
	states    []S // the position after each ply's current move (child)
	// pvs turns on the principal variation search (Iterative only): moves
	// after the first are searched with a null window first.
	pvs bool
	ref Refinements
	// killers holds two moves per ply (Refinements.Killers); history the
	// cut-off counts by move index (Refinements.History).
	killers [][2]M
	hasKill [][2]bool
	index   Indexer[M]
	history []int32
}

func newSearcher[S any, M comparable, G Game[S, M]](ctx context.Context, g G, lim Limits, start time.Time) *searcher[S, M, G] {
	every := 256
	if lim.CheckEvery > 0 {
		every = 1
		for every < lim.CheckEvery {
			every <<= 1
		}
	}
	s := &searcher[S, M, G]{ctx: ctx, g: g, deadline: deadline(ctx, start, lim.Budget), mask: int64(every - 1), maxNodes: lim.Nodes, shuffle: lim.Shuffle}
	s.chance, _ = any(g).(Chancy[S, M])
	s.bounded, _ = any(g).(Bounded[S])
	s.quiet, _ = any(g).(Quiescent[S])
	return s
}

// checkTime sets stopped once the context is done, the deadline passed or
// the node limit is reached.
func (s *searcher[S, M, G]) checkTime() {
	if s.ctx.Err() != nil || (!s.deadline.IsZero() && !time.Now().Before(s.deadline)) || (s.maxNodes > 0 && s.nodes >= s.maxNodes) {
		s.stopped = true
	}
}

// generate returns the ordered moves of st in the buffer of ply, the table
// move (if any) first.
func (s *searcher[S, M, G]) generate(st *S, ply int, first M, hasFirst bool) []M {
	for len(s.moves) <= ply {
		s.moves = append(s.moves, make([]M, 0, 64))
	}
	moves := s.g.Moves(st, s.moves[ply][:0])
	s.moves[ply] = moves
	s.g.Order(st, moves)
	if hasFirst {
		if i := slices.Index(moves, first); i > 0 {
			copy(moves[1:i+1], moves[:i])
			moves[0] = first
		}
	}
	return moves
}

// refine reorders moves (the table move, if any, first) by the killers
// and (depth 3 and more from the leaves) the history, as Refinements say, and returns how many moves lead the
// order ahead of the history's: the table move and the killers found.
func (s *searcher[S, M, G]) refine(moves []M, depth, ply int, hasTT bool) int {
	if !s.ref.Killers && s.history == nil {
		if hasTT {
			return 1
		}
		return 0
	}
	front := 0
	if hasTT {
		front = 1
	}
	rest := moves[front:]
	if s.history != nil && depth >= 3 && len(rest) > 1 {
		h := s.history
		idx := s.index
		slices.SortStableFunc(rest, func(a, b M) int {
			return int(h[idx.Index(b)]) - int(h[idx.Index(a)])
		})
	}
	if s.ref.Killers && ply < len(s.killers) {
		for k := 1; k >= 0; k-- { // the newer killer ends up first
			if !s.hasKill[ply][k] {
				continue
			}
			km := s.killers[ply][k]
			if i := slices.Index(moves[front:], km); i > 0 {
				copy(moves[front+1:front+i+1], moves[front:front+i])
				moves[front] = km
			}
		}
		n := front
		for k := range 2 {
			if s.hasKill[ply][k] && slices.Contains(moves[front:min(front+2, len(moves))], s.killers[ply][k]) {
				n++
			}
		}
		front = n
	}
	return front
}

// cutoff records that m caused a beta cut-off depth plies from the leaves
// and ply from the root.
func (s *searcher[S, M, G]) cutoff(m M, depth, ply int) {
	if s.ref.Killers {
		for len(s.killers) <= ply {
			s.killers = append(s.killers, [2]M{})
			s.hasKill = append(s.hasKill, [2]bool{})
		}
		if !s.hasKill[ply][0] || s.killers[ply][0] != m {
			s.killers[ply][1], s.hasKill[ply][1] = s.killers[ply][0], s.hasKill[ply][0]
			s.killers[ply][0], s.hasKill[ply][0] = m, true
		}
	}
	if s.history != nil {
		i := s.index.Index(m)
		s.history[i] += int32(depth * depth)
		if s.history[i] > 1<<24 {
			for j := range s.history {
				s.history[j] /= 2
			}
		}
	}
}

// child returns the score of move m at st for the side to move at st,
// searching depth-1 plies below it; a random ply is a chance node whose
// score is the weighted mean of its results, each searched with a full
// window (expectimax).
func (s *searcher[S, M, G]) child(st *S, m M, depth, alpha, beta, ply int) int {
	if s.chance != nil {
		for len(s.outs) <= ply {
			s.outs = append(s.outs, nil)
		}
		outs := s.chance.Outcomes(st, m, s.outs[ply][:0])
		s.outs[ply] = outs
		if len(outs) > 0 && s.ref.ChanceWidth > 0 {
			return s.star1(st, outs, depth, alpha, beta, ply)
		}
		if len(outs) > 0 {
			var sum, weights int64
			for i := range outs {
				v := -s.negamax(&outs[i].State, depth-1, -inf, inf, ply+1)
				if s.stopped {
					return 0
				}
				sum += int64(v) * int64(outs[i].Weight)
				weights += int64(outs[i].Weight)
			}
			return int(sum / weights)
		}
	}
	// The child's position lives in the searcher, one per ply, so that no
	// node allocates it (a pointer to a local escapes through the generic
	// calls). A slot is rewritten only once the search below it is done; a
	// longer slice leaves the positions above in the old array, unchanged.
	for len(s.states) <= ply {
		s.states = append(s.states, *new(S))
	}
	s.states[ply] = s.g.Play(st, m)
	if s.extend != nil && depth > 0 && ply+depth < s.iterDepth+s.ref.Extensions {
		depth += min(s.extend.Extend(st, &s.states[ply], m), s.iterDepth+s.ref.Extensions-ply-depth)
	}
	return -s.negamax(&s.states[ply], depth-1, -beta, -alpha, ply+1)
}

// star1 returns the score of the chance node whose results are outs, for
// the side to move at st, within the window (alpha, beta) (fail-soft):
// Star1 pruning, with every result assumed to score within
// Refinements.ChanceWidth of st's static evaluation.
func (s *searcher[S, M, G]) star1(st *S, outs []Outcome[S], depth, alpha, beta, ply int) int {
	e := int64(s.g.Eval(st))
	width := int64(s.ref.ChanceWidth)
	lo, hi := e-width, e+width
	var total int64
	for i := range outs {
		total += int64(outs[i].Weight)
	}
	a, b := int64(alpha), int64(beta)
	var sum, done int64
	for i := range outs {
		w := int64(outs[i].Weight)
		rest := total - done - w
		// The result's scores at or below ai leave the mean at or below
		// alpha whatever the rest score; at or above bi, at or above beta.
		ai := floorDiv(a*total-sum-rest*hi, w)
		bi := ceilDiv(b*total-sum-rest*lo, w)
		ai = max(ai, -inf)
		bi = min(bi, inf)
		v := int64(-s.negamax(&outs[i].State, depth-1, -int(bi), -int(ai), ply+1))
		if s.stopped {
			return 0
		}
		if v <= ai {
			return int((sum + w*v + rest*hi) / total)
		}
		if v >= bi {
			return int((sum + w*v + rest*lo) / total)
		}
		sum += w * v
		done += w
	}
	return int(sum / total)
}

func floorDiv(x, y int64) int64 {
	q := x / y
	if (x%y != 0) && ((x < 0) != (y < 0)) {
		q--
	}
	return q
}

func ceilDiv(x, y int64) int64 { return -floorDiv(-x, y) }

// negamax returns the score of st for its side to move, depth plies deep,
// within the window (alpha, beta) (fail-soft). Once stopped is set its
// result is meaningless and every caller returns at once.
func (s *searcher[S, M, G]) negamax(st *S, depth, alpha, beta, ply int) int {
	s.nodes++
	if s.nodes&s.mask == 0 {
		s.checkTime()
	}
	if s.stopped {
		return 0
	}
	if score, over := s.g.Terminal(st); over {
		return scoreAt(score, ply)
	}
	if depth <= 0 {
		if s.quiet != nil {
			v, n := s.quiet.LeafWithin(st, alpha, beta)
			if n > 0 {
				before := s.nodes
				s.nodes += n
				if (before^s.nodes)&^s.mask != 0 { // a clock check passed over
					s.checkTime()
				}
			}
			return v
		}
		if s.bounded != nil {
			return s.bounded.EvalWithin(st, alpha, beta)
		}
		return s.g.Eval(st)
	}
	var (
		key      uint64
		ttMove   M
		hasTT    bool
		alphaOrg = alpha
	)
	if s.tt != nil {
		key = s.g.Hash(st)
		if e, ok := s.tt.probe(key); ok {
			ttMove, hasTT = e.move, true
			if int(e.depth) >= depth {
				v := fromTable(int(e.score), ply)
				switch {
				case e.bound == exact,
					e.bound == lower && v >= beta,
					e.bound == upper && v <= alpha:
					return v
				}
			}
		}
	}
	moves := s.generate(st, ply, ttMove, hasTT)
	if len(moves) == 0 {
		// Terminal said the game goes on; trust the evaluation.
		return s.g.Eval(st)
	}
	early := s.refine(moves, depth, ply, hasTT)
	best, bestMove := -inf, moves[0]
	for i := 0; i < len(moves); i++ {
		m := moves[i]
		var v int
		if s.ref.Reduce > 0 && i >= early+s.ref.Reduce-1 && depth >= 3 && s.chance == nil {
			// A late move: a shallower null-window search first.
			v = s.child(st, m, depth-1, alpha, alpha+1, ply)
			if v > alpha && !s.stopped {
				v = s.child(st, m, depth, alpha, alpha+1, ply)
				if v > alpha && v < beta && !s.stopped {
					v = s.child(st, m, depth, alpha, beta, ply)
				}
			}
		} else if i > 0 && s.pvs && s.chance == nil {
			// Principal variation search: prove with a null window that m
			// is no better than the best so far, and search it fully only
			// when it is.
			v = s.child(st, m, depth, alpha, alpha+1, ply)
			if v > alpha && v < beta && !s.stopped {
				v = s.child(st, m, depth, alpha, beta, ply)
			}
		} else {
			v = s.child(st, m, depth, alpha, beta, ply)
		}
		if s.stopped {
			return 0
		}
		if v > best {
			best, bestMove = v, m
		}
		if v > alpha {
			alpha = v
		}
		if alpha >= beta {
			s.cutoff(m, depth, ply)
			break
		}
	}
	if s.tt != nil {
		b := exact
		switch {
		case best <= alphaOrg:
			b = upper
		case best >= beta:
			b = lower
		}
		s.tt.store(key, bestMove, toTable(best, ply), depth, b)
	}
	return best
}

// deepen searches the root at depths 1, 2, … up to maxDepth until the
// deadline, keeping the best move of the last iteration that finished (or
// of the unfinished one, when its first move — the previous best — was
// searched and something scored at least as well).
func (s *searcher[S, M, G]) deepen(st *S, maxDepth int, start time.Time) (r Result[M]) {
	return s.deepenFrom(st, 1, maxDepth, start)
}

// deepenFrom is deepen starting at depth first (a Lazy SMP helper's
// stagger); Result.Depth stays 0 until an iteration finishes.
func (s *searcher[S, M, G]) deepenFrom(st *S, first, maxDepth int, start time.Time) (r Result[M]) {
	defer func() {
		r.Nodes = s.nodes
		r.Stopped = s.stopped
		r.Elapsed = time.Since(start)
	}()
	moves := slices.Clone(s.g.Moves(st, nil))
	r.Legal = len(moves)
	if len(moves) == 0 {
		return r
	}
	if _, over := s.g.Terminal(st); over {
		return r
	}
	if s.shuffle != nil {
		s.shuffle.Shuffle(len(moves), func(i, j int) { moves[i], moves[j] = moves[j], moves[i] })
	}
	s.g.Order(st, moves)
	r.Move = moves[0]
	s.checkTime()
	if s.stopped {
		return r
	}
	for depth := min(first, maxDepth); depth <= maxDepth; depth++ {
		s.iterDepth = depth
		alpha := -inf
		best, bestMove, searched := -inf, moves[0], 0
		for _, m := range moves {
			var v int
			if s.ref.RootPVS && searched > 0 && s.chance == nil {
				v = s.child(st, m, depth, alpha, alpha+1, 0)
				if v > alpha && !s.stopped {
					// m is proven better than the best so far; its exact
					// score needs a full window.
					if w := s.child(st, m, depth, alpha, inf, 0); !s.stopped {
						v = w
					} else {
						best, bestMove = v, m
					}
				}
			} else {
				v = s.child(st, m, depth, alpha, inf, 0)
			}
			if s.stopped {
				break
			}
			searched++
			if v > best {
				best, bestMove = v, m
			}
			if v > alpha {
				alpha = v
			}
			s.checkTime()
			if s.stopped {
				break
			}
		}
		// Moves after the first are searched with alpha raised to the best
		// score so far, so a move that beat it is proven better at this
		// depth even if the iteration did not finish; the first move is the
		// previous iteration's best.
		if searched > 0 {
			r.Move, r.Score = bestMove, best
		}
		if s.stopped && searched < len(moves) {
			break
		}
		r.Depth = depth
		if i := slices.Index(moves, bestMove); i > 0 {
			copy(moves[1:i+1], moves[:i])
			moves[0] = bestMove
		}
		if s.stopped || best >= WinBound || best <= -WinBound {
			break
		}
	}
	return r
}

// AlphaBeta searches st to lim.Depth plies (at least 1) with alpha-beta
// pruning, the Order hook and no transposition table. It deepens from 1 so
// that when the deadline (lim.Budget or the context's) comes first it
// returns the best move of the deepest search it finished; it never fails.
// With no legal move Result.Legal is 0.
func AlphaBeta[S any, M comparable, G Game[S, M]](ctx context.Context, g G, st S, lim Limits) Result[M] {
	start := time.Now()
	s := newSearcher[S, M](ctx, g, lim, start)
	return s.deepen(&st, max(lim.Depth, 1), start)
}

// Iterative searches st by iterative deepening alpha-beta with a
// transposition table (its move tried first, then the Order hook) and a
// principal variation search (null windows after the first move) until the
// deadline, lim.Depth (0: MaxDepth) or a forced win or loss. It returns the
// best move so far and never fails.
func Iterative[S any, M comparable, G Game[S, M]](ctx context.Context, g G, st S, lim Limits) Result[M] {
	start := time.Now()
	tt := newTable[M](lim.TableBits)
	depth := lim.Depth
	if depth <= 0 || depth > MaxDepth {
		depth = MaxDepth
	}
	threads := lim.Threads
	if lim.Nodes > 0 {
		threads = 1
	}
	if threads <= 1 {
		return newIterative(ctx, g, lim, start, tt).deepen(&st, depth, start)
	}
	// Lazy SMP: the helpers search until the main search ends, then stop.
	tt.share()
	hctx, cancel := context.WithCancel(ctx)
	helpers := make([]Result[M], threads-1)
	var wg sync.WaitGroup
	for i := range helpers {
		hl := lim
		hl.Shuffle = rand.New(rand.NewPCG(uint64(i+1), seedOf(lim.Shuffle)))
		h := newIterative(hctx, g, hl, start, tt)
		wg.Go(func() { helpers[i] = h.deepenFrom(&st, min(i+2, depth), depth, start) })
	}
	r := newIterative(ctx, g, lim, start, tt).deepen(&st, depth, start)
	cancel()
	wg.Wait()
	for _, h := range helpers {
		r.Nodes += h.Nodes
		if h.Depth > r.Depth && h.Legal > 0 {
			r.Move, r.Score, r.Depth = h.Move, h.Score, h.Depth
		}
	}
	r.Elapsed = time.Since(start)
	return r
}

// newIterative is one thread of Iterative's search, on table tt.
func newIterative[S any, M comparable, G Game[S, M]](ctx context.Context, g G, lim Limits, start time.Time, tt *table[M]) *searcher[S, M, G] {
	s := newSearcher[S, M](ctx, g, lim, start)
	s.tt = tt
	s.pvs = true
	s.ref = lim.Refinements
	if s.ref.Extensions > 0 {
		s.extend, _ = any(g).(Extending[S, M])
	}
	if s.ref.History {
		if ix, ok := any(g).(Indexer[M]); ok {
			s.index = ix
			s.history = make([]int32, MaxIndex)
		}
	}
	return s
}

// seedOf draws a seed from r, or returns a fixed one when r is nil.
func seedOf(r *rand.Rand) uint64 {
	if r == nil {
		return 1
	}
	return r.Uint64()
}

// Greedy is the one-ply search: the move whose result evaluates best.
func Greedy[S any, M comparable, G Game[S, M]](ctx context.Context, g G, st S, lim Limits) Result[M] {
	lim.Depth = 1
	return AlphaBeta[S, M](ctx, g, st, lim)
}

// Rank returns every legal move of st with its one-ply score, best first;
// moves that score the same keep the Order hook's order.
func Rank[S any, M comparable, G Game[S, M]](ctx context.Context, g G, st S) []Scored[M] {
	s := newSearcher[S, M](ctx, g, Limits{}, time.Now())
	moves := slices.Clone(g.Moves(&st, nil))
	g.Order(&st, moves)
	out := make([]Scored[M], len(moves))
	for i, m := range moves {
		out[i] = Scored[M]{Move: m, Score: s.child(&st, m, 1, -inf, inf, 0)}
	}
	slices.SortStableFunc(out, func(a, b Scored[M]) int { return b.Score - a.Score })
	return out
}
