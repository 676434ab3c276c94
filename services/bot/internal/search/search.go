// Package search holds the game-agnostic search algorithms of the bot:
// greedy one-ply, fixed-depth alpha-beta (negamax) and iterative deepening
// with a transposition table, move ordering and principal variation search,
// all under a deadline, plus
// chance nodes for games where a ply has a random result (a Banqi reveal).
//
// A game plugs in through the Game interface, written as an adapter over its
// own fast position and move types; the algorithms are generic over the
// position type S, the move type M and the adapter G, so calls through a
// value-type adapter are direct.
//
// Hidden information is handled by expectimax: a ply whose result is random
// (Chancy.Outcomes) becomes a chance node whose value is the weighted mean
// of its results. We chose expectimax over determinized search because in
// Banqi neither seat knows any face-down identity (B6): the view is the
// whole public state, a reveal draws uniformly from the known face-down
// counts, and so chance nodes model the game exactly, whereas determinizing
// (fixing every face-down piece, then voting) pretends the searcher knows
// what it cannot and suffers from strategy fusion. The reveal outcomes are
// at most 14 distinct piece kinds, so the chance branching stays small.
package search

import (
	"context"
	"math/rand/v2"
	"time"
)

// Scores are from the point of view of the side to move. Win is the score
// of a won game; the search subtracts the distance in plies so that a
// nearer win scores higher. Evaluations must stay well inside ±WinBound.
const (
	Win      = 1 << 24
	WinBound = Win - 1<<12
	inf      = Win + 1
)

// MaxDepth is the deepest iteration Iterative attempts.
const MaxDepth = 64

// Game is what the search needs of a game, for positions of type S and
// moves of type M. Methods take positions by pointer only to avoid copies;
// they must not change them.
type Game[S any, M comparable] interface {
	// Moves appends the legal moves of the side to move to dst.
	Moves(s *S, dst []M) []M
	// Play returns the position after move m, which Moves listed.
	Play(s *S, m M) S
	// Terminal reports whether the game is over and, if so, its score for
	// the side to move: -Win lost, 0 drawn, +Win won.
	Terminal(s *S) (score int, over bool)
	// Eval is the static evaluation for the side to move, within ±WinBound.
	Eval(s *S) int
	// Hash identifies the position (side to move included) for the
	// transposition table.
	Hash(s *S) uint64
	// Order sorts moves in place, likeliest best first. It is a cheap hook
	// called at every interior node; it may do nothing.
	Order(s *S, moves []M)
}

// Bounded is a Game whose evaluation can stop early once it knows the
// score is outside the window (alpha, beta): EvalWithin returns Eval's
// score when that is inside the window, else any bound on the far side
// (at most alpha when Eval's score is at most alpha, at least beta when
// it is at least beta), as a fail-soft search may. The search calls it,
// not Eval, at the leaves of its main search.
type Bounded[S any] interface {
	EvalWithin(s *S, alpha, beta int) int
}

// Quiescent is a Bounded game whose leaves may search on a few plies (a
// quiescence search): LeafWithin returns a score as EvalWithin does and
// the positions it visited beyond the leaf, which the search counts as its
// own (against Limits.Nodes too, so that a node-limited comparison charges
// them). The search calls it, not EvalWithin, at the leaves of its main
// search.
type Quiescent[S any] interface {
	LeafWithin(s *S, alpha, beta int) (score int, nodes int64)
}

// Extending is a Game that searches some moves deeper than the rest
// (extensions): Extend returns how many plies more to search below child,
// the position after move m at parent (0 for most moves). The search
// grants at most Refinements.Extensions plies of extension along a line.
type Extending[S any, M comparable] interface {
	Extend(parent, child *S, m M) int
}

// Outcome is one possible result of a random ply, with its weight (the
// probability is Weight divided by the sum of the weights).
type Outcome[S any] struct {
	State  S
	Weight int
}

// Chancy is a Game where some moves have random results.
type Chancy[S any, M comparable] interface {
	Game[S, M]
	// Outcomes appends the possible results of move m to dst; it returns
	// dst unchanged when m is deterministic, and the search then calls Play.
	Outcomes(s *S, m M, dst []Outcome[S]) []Outcome[S]
}

// Limits bound a search.
type Limits struct {
	// Depth is the depth to search (AlphaBeta) or the deepest iteration
	// (Iterative; 0 means MaxDepth).
	Depth int
	// Budget is the time allowed; 0 means only the context's deadline.
	Budget time.Duration
	// CheckEvery is the number of nodes between clock checks, rounded up
	// to a power of two; 0 means 256.
	CheckEvery int
	// Nodes, if positive, stops the search once it has visited that many
	// positions (checked every CheckEvery nodes, as the clock is): a
	// budget that does not depend on the machine's speed or load, for
	// measurements.
	Nodes int64
	// TableBits sets the transposition table to 1<<TableBits entries
	// (Iterative only); 0 means 16.
	TableBits int
	// Shuffle, if not nil, shuffles the root moves before the Order hook
	// (a stable sort), so that equal moves are chosen at random.
	Shuffle *rand.Rand
	// Refinements turns on search refinements (Iterative only).
	Refinements Refinements
	// Threads is how many goroutines search (Iterative only). Beyond the
	// first, helper searches of the same root share its transposition
	// table (Lazy SMP): each starts a ply deeper than the one before it and
	// orders the root at random, and what they store lets the main search
	// go deeper in the same time. The move of the deepest iteration that
	// finished is played. 0 or 1 means one goroutine. Ignored when Nodes is
	// set, so that node-limited searches repeat exactly.
	Threads int
}

// Refinements are the search refinements beyond the transposition table
// and the principal variation search; the zero value turns them all off.
type Refinements struct {
	// Killers tries, after the table move, the two moves that last caused
	// a cut-off at the same distance from the root.
	Killers bool
	// History orders the moves after the table move and the killers by how
	// often, weighted by depth, each caused a cut-off. It needs a game
	// whose adapter is an Indexer.
	History bool
	// Reduce searches moves late in the order (after the table move, the
	// killers and the first Reduce-1 others) one ply shallower first, with a
	// null window, and again at full depth only when one beats alpha
	// (late-move reductions). 0 turns it off.
	Reduce int
	// RootPVS searches the root moves after the first with a null window
	// first too, and again with a full one only when one beats the best so
	// far (which it is then proven to, even if the deadline cuts the second
	// search short).
	RootPVS bool
	// ChanceWidth, if positive, prunes chance nodes (Star1): each result
	// of a random ply is assumed to score within ChanceWidth of the static
	// evaluation before it, so once the results searched so far, with the
	// rest at that bound, cannot bring the weighted mean inside the
	// window, the node is cut off, and each result is searched with the
	// narrowest window that still decides the mean. 0 searches every
	// result with a full window (exact expectimax).
	ChanceWidth int
	// Extensions, if positive, lets an Extending game search its forcing
	// moves deeper: at most that many plies more along any line from the
	// root (Iterative only).
	Extensions int
}

// Indexer is a Game whose moves have small indexes, for the history
// table: Index returns 0 ≤ i < MaxIndex.
type Indexer[M comparable] interface {
	Index(m M) int
}

// MaxIndex bounds an Indexer's indexes.
const MaxIndex = 1024

// Result is what a search found.
type Result[M comparable] struct {
	// Move is the best move found, a legal move whenever Legal > 0,
	// whatever the deadline: the best of the deepest iteration finished,
	// or, when the deadline fell inside depth 1, the best of the moves it
	// evaluated, or, with none evaluated, the first of the Order hook. It
	// is the zero M only when Legal is 0 (in a game whose zero M is a
	// legal move, Legal tells the two apart, not Move).
	Move M
	// Score is Move's score for the side to move.
	Score int
	// Depth is the deepest search completed for the whole root.
	Depth int
	// Nodes is the number of positions visited.
	Nodes int64
	// Legal is the number of legal moves at the root.
	Legal int
	// Stopped reports that the deadline cut the search short.
	Stopped bool
	// Elapsed is the time spent.
	Elapsed time.Duration
}

// Scored is a move with its score for the side to move.
type Scored[M comparable] struct {
	Move  M
	Score int
}

// margin is kept back from a deadline: the time to unwind the search and
// answer.
func margin(d time.Duration) time.Duration {
	m := d / 20
	if m > 20*time.Millisecond {
		m = 20 * time.Millisecond
	}
	return m + time.Millisecond
}

// callerMargin is kept back from a caller's deadline: a fifth of the time
// left, between 5 and 100 ms, for unwinding, the response and its transport.
func callerMargin(d time.Duration) time.Duration {
	return min(max(d/5, 5*time.Millisecond), 100*time.Millisecond)
}

// deadline returns when the search must stop: the earlier of start+budget
// and the context's deadline, less a margin; the zero time means never.
func deadline(ctx context.Context, start time.Time, budget time.Duration) time.Time {
	var d time.Time
	if budget > 0 {
		d = start.Add(budget - margin(budget))
	}
	if cd, ok := ctx.Deadline(); ok {
		// A caller's deadline also covers the answer's way back to it.
		cd = cd.Add(-callerMargin(cd.Sub(start)))
		if d.IsZero() || cd.Before(d) {
			d = cd
		}
	}
	return d
}

// scoreAt turns a terminal score into one that prefers near wins and far
// losses, ply plies from the root.
func scoreAt(score, ply int) int {
	switch {
	case score >= WinBound:
		return score - ply
	case score <= -WinBound:
		return score + ply
	}
	return score
}
