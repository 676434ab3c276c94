package player

import (
	"tabuleiro.dev/pkg/engine/quoridor"
	"tabuleiro.dev/services/bot/internal/search"
)

// A wall-race extension at the leaves (issue 49, lab variants race*). The
// expert's static evaluation credits the walls a side holds at a fixed rate
// and so misses a pocket that the other side's walls are about to close.
// Where the race is tight (both paths short, the side not to move holding
// walls), LeafWithin does not trust the evaluation: it searches a few
// plies more, each side only stepping along its shortest path or placing
// one of its few walls of largest race gain (the steps a wall adds to the
// other path less those it adds to its own), and evaluates after them.
// There is no stand-pat: a side must move, and stepping is the move the
// static evaluation assumes (its half step for the side to move).
//
// Off in the expert. Node-limited lab, 300,000 positions a ply, against
// the racer's first 40 games (the fixed table 31-0-9): with the race
// search's positions charged against the limit, as a clock would charge
// them, every variant scored lower (race2k2 27-0-13, race2k2g3 28-0-12,
// race4k2 24-0-16, race4k2g3 27-0-13, race4k1 18-0-22, race2k2f 23-0-17;
// answer6 28-0-12). Uncharged (race4k2u, a diagnostic: 19 times as long
// to depth 6 on BenchmarkQuoridorExpertEval's midgame, its 40 games
// against the racer twice as long as the fixed table's) the four-ply race search won 87-0-13 of 100
// (the fixed table 75-0-25) but 36-0-4 of 40 against hard (the fixed
// table 40-0-0) and 30-0-10 against expert-1 (29-0-11): it sees the
// pockets, but its positions cost more than the depth they replace.

// maxRaceWalls bounds qWeights.raceWalls.
const maxRaceWalls = 6

// LeafWithin is the search's leaf (search.Quiescent): EvalWithin, or, at a
// tight race with qWeights.race set, the race search, whose positions it
// reports so that the search counts them against its node limit.
func (g qGame) LeafWithin(s *qState, alpha, beta int) (int, int64) {
	me := sideOfSeat(s.pos.ToMove())
	dMe, dOpp := s.dist(me), s.dist(1-me)
	if g.w != nil && g.w.endgame {
		wMe, wOpp := s.pos.WallsLeft(seatOfSide(me)), s.pos.WallsLeft(seatOfSide(1-me))
		if v, ok, cost := s.wallEndgame(me, dMe, dOpp, wMe, wOpp); ok {
			if g.w.raceFree {
				cost = 0
			}
			return v, cost
		}
	}
	if g.w != nil && g.w.answer > 0 {
		return g.answerEval(s, me, dMe, dOpp, alpha, beta), 0
	}
	if g.w == nil || g.w.race <= 0 || !g.raceTight(s, me, dMe, dOpp) {
		return g.evalDists(s, me, dMe, dOpp, alpha, beta), 0
	}
	var n int64
	v := g.raceSearch(s, alpha, beta, g.w.race, &n)
	if g.w.raceFree {
		n = 0
	}
	return v, n
}

// raceTight reports whether the race at s is one the static evaluation
// may misjudge: both paths at most raceNear steps and the side not to move
// holding walls.
func (g qGame) raceTight(s *qState, me, dMe, dOpp int) bool {
	if dMe > g.w.raceNear || dOpp > g.w.raceNear || s.pos.WallsLeft(seatOfSide(1-me)) == 0 {
		return false
	}
	return g.w.raceGate <= 0 || s.wallGain(me, dMe, g.w.raceGate, false) >= g.w.raceGate
}

// answerEval is the evaluation of the variants answer*: evalDists, or,
// when the other side holds walls and its best wall against the side to
// move's pawn (gain g, up to qWeights.answer steps) would leave that
// path longer than its own, the evaluation with that wall placed (the
// path g steps longer, the wall spent), if lower.
func (g qGame) answerEval(s *qState, me, dMe, dOpp, alpha, beta int) int {
	score := g.evalDists(s, me, dMe, dOpp, alpha, beta)
	wMe, wOpp := s.pos.WallsLeft(seatOfSide(me)), s.pos.WallsLeft(seatOfSide(1-me))
	if wOpp == 0 || wMe == 0 && dOpp < dMe || score <= alpha {
		return score // a decided race, or already at most alpha
	}
	if score-qStep*g.w.answer >= beta {
		return score - qStep*g.w.answer // no threat brings it below beta
	}
	gain := s.wallGain(me, dMe, g.w.answer, false)
	if gain == 0 || dMe+gain <= dOpp {
		return score
	}
	// The wall placed: the path gain steps longer, one wall fewer.
	return min(score, score-qStep*gain+g.w.walls[wOpp]-g.w.walls[wOpp-1])
}

// raceSearch returns the score of s for its side to move, depth plies of
// race moves (raceMoves) deep, within the window (alpha, beta)
// (fail-soft), counting the positions it plays in n.
func (g qGame) raceSearch(s *qState, alpha, beta, depth int, n *int64) int {
	if score, over := g.Terminal(s); over {
		return score + int(s.ply) // as the search scores a loss ply plies away
	}
	me := sideOfSeat(s.pos.ToMove())
	dMe, dOpp := s.dist(me), s.dist(1-me)
	wMe, wOpp := s.pos.WallsLeft(seatOfSide(me)), s.pos.WallsLeft(seatOfSide(1-me))
	if depth <= 0 || wOpp == 0 && dMe <= dOpp || wMe == 0 && dOpp < dMe {
		// The horizon, or a race the evaluation scores as decided.
		if g.w.raceLeaf != nil {
			leaf := g
			leaf.w = g.w.raceLeaf
			return leaf.evalDists(s, me, dMe, dOpp, alpha, beta)
		}
		return g.evalDists(s, me, dMe, dOpp, alpha, beta)
	}
	var buf [1 + maxRaceWalls]quoridor.Move
	moves := s.raceMoves(me, dMe, dOpp, min(g.w.raceWalls, maxRaceWalls), buf[:0])
	best := -search.Win
	for _, m := range moves {
		c := g.Play(s, m)
		*n++
		v := -g.raceSearch(&c, -beta, -alpha, depth-1, n)
		if v > best {
			best = v
		}
		if v > alpha {
			alpha = v
		}
		if alpha >= beta {
			break
		}
	}
	return best
}

// raceMoves appends to dst the race moves of the side to move (me, its
// path dMe, the other's dOpp): the pawn move nearest its goal, then up to
// k of its walls in hand that gain the race most (at least a step), the
// largest gain first.
func (s *qState) raceMoves(me, dMe, dOpp, k int, dst []quoridor.Move) []quoridor.Move {
	var tried int
	return s.raceMovesCounted(me, dMe, dOpp, k, dst, &tried)
}

// noStep is shortestStep's distance when the side has no pawn move.
const noStep = int8(127)

// shortestStep returns me's pawn move that ends nearest its goal, and the
// path from there (noStep when it has no pawn move).
func (s *qState) shortestStep(me int) (quoridor.Move, int8) {
	var legal [160]quoridor.Move
	pawns := s.pos.LegalMovesWithin(legal[:0], 0)
	var toGoal [81]int8
	s.goalDistances(me, pawns, &toGoal)
	step, near := quoridor.Move(0), noStep
	for _, m := range pawns {
		if d := toGoal[m.To()]; d < near {
			step, near = m, d
		}
	}
	return step, near
}

// raceMovesCounted is raceMoves, adding to tried the walls it placed to
// measure their gain.
func (s *qState) raceMovesCounted(me, dMe, dOpp, k int, dst []quoridor.Move, tried *int) []quoridor.Move {
	if step, near := s.shortestStep(me); near != noStep {
		dst = append(dst, step)
	}
	if k <= 0 || s.pos.WallsLeft(seatOfSide(me)) == 0 {
		return dst
	}
	var legal [160]quoridor.Move
	opp := 1 - me
	oppPawn, myPawn := int(s.pos.Pawn(seatOfSide(opp))), int(s.pos.Pawn(seatOfSide(me)))
	// A wall that lengthens the other path cuts each of its shortest
	// paths, so it is among the walls across one of them.
	hCut, vCut := s.pathCuts(oppPawn, opp, dOpp)
	walls := s.pos.LegalMovesWithin(legal[:0], hCut|vCut)
	var best [maxRaceWalls]quoridor.Move
	var gains [maxRaceWalls]int
	nb := 0
	for _, m := range walls {
		if !m.IsWall() {
			continue
		}
		at := m.At()
		f, r := at.File(), at.Rank()
		a := uint(f + 8*r)
		o := m.Orientation()
		if o == quoridor.Horizontal && hCut>>a&1 == 0 || o == quoridor.Vertical && vCut>>a&1 == 0 {
			continue
		}
		c := s.closed
		closeWall(&c, f, r, o)
		*tried++
		gain := distWith(&c, oppPawn, qGoals[opp], noPath) - dOpp
		if gain <= 0 {
			continue
		}
		gain -= distWith(&c, myPawn, qGoals[me], noPath) - dMe
		if gain <= 0 || nb == k && gain <= gains[k-1] {
			continue
		}
		// Insert, keeping the k largest gains, the largest first.
		i := min(nb, k-1)
		for ; i > 0 && gains[i-1] < gain; i-- {
			best[i], gains[i] = best[i-1], gains[i-1]
		}
		best[i], gains[i] = m, gain
		nb = min(nb+1, k)
	}
	return append(dst, best[:nb]...)
}
