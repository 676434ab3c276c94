package player

import (
	"context"
	"math/rand/v2"
	"time"

	"tabuleiro.dev/pkg/engine/quoridor"
	"tabuleiro.dev/services/bot/internal/search"
)

// The racer (issue 49) is a sparring level for the Quoridor expert that
// plays like the engines that beat it in wall races: it searches as the
// expert does (iterative deepening, the same selective walls and
// refinements) but values a wall in hand at a third of a step, so that it
// places a wall as soon as the wall gains the race a third of a step or
// more: early, where it lengthens the other path most against its own.
// racerPolicy (the lab's TABULEIRO_QUORIDOR_LAB_RACER) turns it into the
// earlier one-ply policy (racerQuoridor) instead.
var racerPolicy = false

// racerWeights are the searching racer's evaluation terms: the side to
// move's half step and a third of a step a wall in hand.
var racerWeights = qWeights{tempo: qStep / 2, walls: [11]int{0, 35, 70, 105, 140, 175, 210, 245, 280, 315, 350}}

// racerQGame is the searching racer's adapter.
func racerQGame() qGame {
	return qGame{w: &racerWeights, narrow: true, own: true, fullWidth: 1, pathOrder: true}
}

// searchRacer is the searching racer's choice, within budget.
func searchRacer(ctx context.Context, p quoridor.Position, budget time.Duration, rng *rand.Rand) (Choice, error) {
	r := search.Iterative[qState, quoridor.Move](ctx, racerQGame(), newQState(p), search.Limits{
		Budget: budget, Shuffle: rng, CheckEvery: 64, Nodes: nodeLimits[Racer], TableBits: 18, Refinements: expertRefinements,
	})
	if r.Legal == 0 {
		return Choice{}, ErrNoPly
	}
	return Choice{Ply: r.Move, Eval: r.Score, Nodes: r.Nodes, Depth: r.Depth}, nil
}

// racerGain is the least race gain (steps the wall adds to the opponent's
// path less those it adds to the racer's own) for which the racer places a
// wall rather than steps; racerBehindGain the least when the racer is
// behind in the race (its path longer than the opponent's). Variables so
// that the lab (TABULEIRO_QUORIDOR_LAB_RACER) can try others.
var (
	racerGain       = 2
	racerBehindGain = 1
)

// racerQuoridor is the sparring racer's policy (issue 49), a harness level
// that plays like the engines that beat the expert in wall races: while it
// has walls it places the wall that lengthens the opponent's path most
// against its own (the largest race gain), as soon as the gain is large;
// otherwise it steps along its shortest path. Ties are drawn with rng. It
// does not search: it looks one ply ahead, every legal ply.
func racerQuoridor(p quoridor.Position, rng *rand.Rand) (Choice, error) {
	legal := p.LegalMoves(nil)
	if len(legal) == 0 {
		return Choice{}, ErrNoPly
	}
	me := sideOfSeat(p.ToMove())
	s := newQState(p)
	dMe, dOpp := s.dist(me), s.dist(1-me)
	var best []quoridor.Move
	bestGain := -noPath
	pick := func(m quoridor.Move, gain int) {
		switch {
		case gain > bestGain:
			bestGain, best = gain, append(best[:0], m)
		case gain == bestGain:
			best = append(best, m)
		}
	}
	nodes := int64(0)
	if p.WallsLeft(p.ToMove()) > 0 {
		for _, m := range legal {
			if !m.IsWall() {
				continue
			}
			n := s
			n.addWall(m)
			nodes++
			pick(m, (n.dist(1-me)-dOpp)-(n.dist(me)-dMe))
		}
	}
	threshold := racerGain
	if dMe > dOpp {
		threshold = racerBehindGain
	}
	if len(best) == 0 || bestGain < threshold {
		// Step: the pawn move that leaves the shortest path.
		best, bestGain = best[:0], -noPath
		for _, m := range legal {
			if !m.IsPawn() {
				continue
			}
			n := s
			n.pos = p.PlayUnchecked(m)
			nodes++
			if n.pos.Outcome().Over() {
				return Choice{Ply: m, Eval: qRaceWon, Nodes: nodes, Depth: 1}, nil
			}
			pick(m, -n.dist(me))
		}
	}
	m := best[rng.IntN(len(best))]
	return Choice{Ply: m, Eval: qStep * (dOpp - dMe), Nodes: nodes, Depth: 1}, nil
}
