package player

import "tabuleiro.dev/pkg/engine/quoridor"

// A wall endgame (issue 49, lab variant endgame): one side holds walls,
// the other none, and the side holding walls is behind in the race. The
// fixed table credits those walls at 1.05 to 2.1 steps each whatever they
// can still do, so the expert scored such positions +195 to +860 in the
// lost games where they were lost. The side without walls can only walk,
// so the race is played out: it steps along its shortest path, the other
// places its wall of largest race gain while that gains two steps or more
// (a step more than the turn it costs), else steps too.

// endgameGain is the least race gain for which the playout places a wall.
const endgameGain = 2

// wallEndgame scores s for its side to move (me, paths dMe and dOpp, walls
// wMe and wOpp) by the playout when exactly one side holds walls and that
// side is behind (or level and not to move); ok is false otherwise.
func (s *qState) wallEndgame(me, dMe, dOpp, wMe, wOpp int) (score int, ok bool) {
	switch {
	case wOpp == 0 && wMe > 0 && dMe > dOpp: // behind, walls in hand
	case wMe == 0 && wOpp > 0 && dOpp >= dMe: // ahead, the other holding walls
	default:
		return 0, false
	}
	winner, margin := s.playout()
	v := qRaceWon + qStep*margin
	if winner != me {
		v = -v
	}
	return v, true
}

// playout plays the race from s: each side steps along its shortest path
// or places its wall of largest race gain when that gains endgameGain
// steps or more. It returns the side that arrives first and the steps the
// other has left then.
func (s *qState) playout() (winner, margin int) {
	c := *s
	for range 256 {
		mover := sideOfSeat(c.pos.ToMove())
		dM, dO := c.dist(mover), c.dist(1-mover)
		if c.pos.WallsLeft(c.pos.ToMove()) == 0 && c.pos.WallsLeft(c.pos.ToMove().Other()) == 0 {
			// A plain race: the side to move arrives first when its path is
			// no longer.
			if dM <= dO {
				return mover, dO - dM + 1
			}
			return 1 - mover, dM - dO
		}
		var buf [2]quoridor.Move
		moves := c.raceMoves(mover, dM, dO, 1, buf[:0])
		if len(moves) == 0 {
			return 1 - mover, dO
		}
		m := moves[0]
		if len(moves) > 1 {
			w := c
			w.addWall(moves[1])
			if (w.dist(1-mover)-dO)-(w.dist(mover)-dM) >= endgameGain {
				m = moves[1]
			}
		}
		c = qGame{}.Play(&c, m)
		if c.pos.Outcome().Over() {
			return mover, c.dist(1 - mover)
		}
	}
	return sideOfSeat(c.pos.ToMove()), 0
}
