package player

import (
	"math/rand/v2"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/quoridor"
)

// The easy Quoridor level plays like a beginner rather than a weak
// searcher: it mostly walks its pawn along a shortest path, now and then
// wanders sideways, and places only a few walls, each one that lengthens
// the opponent's path without lengthening its own and never behind its own
// pawn. (Ranking every ply by path difference alone, as the other games'
// easy level does, made it a wall dispenser: a wall that costs the
// opponent a step scores as much as a step forward.)
const (
	easyMaxWalls    = 4    // walls an easy bot places in a game at most
	easyWallChance  = 0.30 // chance of a wall when the opponent leads the race
	easyCalmChance  = 0.06 // … when it does not
	easyWanderRatio = 0.25 // chance of a pawn move that does not advance
)

// easyQuoridor returns the easy level's ply in p.
func easyQuoridor(p quoridor.Position, rng *rand.Rand) (Choice, error) {
	me := sideOfSeat(p.ToMove())
	s := newQState(p)
	myDist, oppDist := s.dist(me), s.dist(1-me)
	var advance, pawn, walls []quoridor.Move
	bestGain := 1
	moves := p.LegalMoves(nil)
	for _, m := range moves {
		next, err := p.PlayMove(m)
		if err != nil {
			continue
		}
		ns := newQState(next)
		if m.IsPawn() {
			d := ns.dist(me)
			if d == 0 {
				return Choice{Ply: m, Eval: qRaceWon, Nodes: int64(len(moves)), Depth: 1}, nil // a win is never missed
			}
			pawn = append(pawn, m)
			if d < myDist {
				advance = append(advance, m)
			}
			continue
		}
		if behindPawn(m, p.Pawn(p.ToMove()), p.ToMove()) || ns.dist(me) > myDist {
			continue
		}
		switch gain := ns.dist(1-me) - oppDist; {
		case gain > bestGain:
			bestGain, walls = gain, append(walls[:0], m)
		case gain == bestGain:
			walls = append(walls, m)
		}
	}
	if len(pawn) == 0 && len(walls) == 0 {
		if len(moves) == 0 {
			return Choice{}, ErrNoPly
		}
		// Walled in by a rule corner case: any legal ply.
		return Choice{Ply: moves[rng.IntN(len(moves))], Nodes: int64(len(moves)), Depth: 1}, nil
	}
	chance := easyCalmChance
	if oppDist < myDist || oppDist <= 2 {
		chance = easyWallChance
	}
	used := 10 - p.WallsLeft(p.ToMove())
	pick := func(ms []quoridor.Move) Choice {
		return Choice{Ply: ms[rng.IntN(len(ms))], Eval: (oppDist - myDist) * qStep, Nodes: int64(len(moves)), Depth: 1}
	}
	switch r := rng.Float64(); {
	case len(walls) > 0 && used < easyMaxWalls && (r < chance || len(pawn) == 0):
		return pick(walls), nil
	case len(pawn) == 0:
		return pick(walls), nil
	case len(advance) == 0 || rng.Float64() < easyWanderRatio:
		return pick(pawn), nil
	default:
		return pick(advance), nil
	}
}

// behindPawn reports whether wall w lies wholly behind the pawn on sq of
// seat s, on the side away from its goal (white's goal is rank 9, black's
// rank 1, Q1): a horizontal wall in a groove below a white pawn's rank, a
// vertical one spanning only lower ranks (mirrored for black).
func behindPawn(w quoridor.Move, sq quoridor.Square, s engine.Seat) bool {
	r, pr := w.At().Rank(), sq.Rank() // the wall lies between ranks r and r+1, or spans them
	horizontal := w.Orientation() == quoridor.Horizontal
	if s == engine.First {
		if horizontal {
			return r+1 <= pr
		}
		return r+1 < pr
	}
	if horizontal {
		return r >= pr
	}
	return r > pr
}
