package player

import (
	"math/bits"
	"sync/atomic"

	"tabuleiro.dev/pkg/engine/quoridor"
)

// A wall endgame (issue 49, lab variant endgame): one side holds walls,
// the other none, and the side holding walls is behind in the race. The
// fixed table credits those walls at 1.05 to 2.1 steps each whatever they
// can still do, so the expert scored such positions +195 to +860 in the
// lost games where they were lost. The side without walls can only walk,
// so the race is played out: it steps along its shortest path, the other
// places its wall of largest race gain while that gains two steps or more
// (a step more than the turn it costs), else steps too.
//
// On in the expert since 2026-12-07 (docs/bots.md, "Where the losses come
// from"). With its positions charged against the lab's node limit, on the
// same games as the fixed table alone: 89-0-11 against expert-1 over 100
// games (72-0-28), 77-3-20 against the racer (75-0-25), 40-0-0 against
// hard (40-0-0); at 300 ms a ply against the racer 52-2-26 of 80
// (52-0-28). It takes seven times as long to depth 6 in a wall race (the
// midgame does not reach it), and drew by shuffling in 5 of those games
// (the expert shuffled in a position its playout scored won while the
// racer shuffled in one its table scored lost).
//
// A playout is a function of its position, and playouts from nearby
// positions run into each other (the walking pawn keeps to its path), so
// every position a playout passes is remembered with its result
// (endgames): a later playout stops at the first it meets.

// endgameGain is the least race gain for which the playout places a wall.
const endgameGain = 2

// endgameLeast is the least race gain for which the playout's side holding
// walls places one: endgameGain, or 1 in lab variant gain1 (a wall that
// gains no tempo but may open a pocket for the next).
var endgameLeast = endgameGain

// maxPlayout bounds a playout's plies (a race is far shorter).
const maxPlayout = 255

// wallEndgame scores s for its side to move (me, paths dMe and dOpp, walls
// wMe and wOpp) by the playout when exactly one side holds walls and that
// side is behind (or level and not to move); ok is false otherwise. It
// also returns the positions the playout looked at (each ply and each
// wall it tried; a remembered result counts one).
func (s *qState) wallEndgame(me, dMe, dOpp, wMe, wOpp int) (score int, ok bool, cost int64) {
	switch {
	case wOpp == 0 && wMe > 0 && dMe > dOpp: // behind, walls in hand
	case wMe == 0 && wOpp > 0 && dOpp >= dMe: // ahead, the other holding walls
	default:
		return 0, false, 0
	}
	r, cost := s.playout()
	// The margin in steps, and a sooner win scores higher (and a later
	// loss): a point a ply, so that the winner makes progress where the
	// margins are level. (Capping the margin at three steps and counting a
	// tenth of a step a ply did worse: 20-2-11 against the racer's first
	// 33 games, where this scored 27-1-5.)
	v := qRaceWon + qStep*r.margin - r.plies
	if !r.moverWins {
		v = -v
	}
	return v, true, cost
}

// raceResult is how a playout ends, seen from its first position: whether
// the side to move there arrives first, the steps the other has left
// then, and the plies it takes.
type raceResult struct {
	moverWins bool
	margin    int
	plies     int
}

// playout plays the race from s: each side steps along its shortest path
// or places its wall of largest race gain when that gains endgameGain
// steps or more. It returns the result and the positions it looked at.
func (s *qState) playout() (raceResult, int64) {
	var keys [maxPlayout]uint64
	var cost int64
	c := *s
	n := 0
	var r raceResult // the result from c, once the loop ends
	// The paths are measured once: a ply carries them on (a step along
	// the shortest path to the square it reaches, a wall to the lengths
	// endgameWall measured with it).
	mover, dM, dO := c.paths()
	for {
		key := qGame{}.Hash(&c)
		cost++
		if e, ok := endgames.load(key); ok {
			r = e
			break
		}
		if e, ok := c.decidedRace(mover, dM, dO); ok {
			endgames.store(key, e)
			r = e
			break
		}
		if n == maxPlayout {
			break // never in a race: scored as a draw
		}
		keys[n] = key
		n++
		m, dMAfter, dOAfter, ok := c.playoutPly(mover, dM, dO, &cost)
		if !ok { // no pawn move: the side to move at c loses there
			n--
			r = raceResult{margin: dO}
			endgames.store(key, r)
			break
		}
		c = qGame{}.Play(&c, m)
		if c.pos.Outcome().Over() { // the mover arrived
			r = raceResult{margin: dOAfter}
			break
		}
		mover, dM, dO = 1-mover, dOAfter, dMAfter
	}
	// Each position before c is a ply further from the end, the other
	// side to move.
	for i := n - 1; i >= 0; i-- {
		r = raceResult{moverWins: !r.moverWins, margin: r.margin, plies: r.plies + 1}
		endgames.store(keys[i], r)
	}
	return r, cost
}

// paths returns the side to move and the lengths of its path and the
// other's, which a playout's ply needs twice.
func (s *qState) paths() (mover, dM, dO int) {
	mover = sideOfSeat(s.pos.ToMove())
	return mover, s.dist(mover), s.dist(1 - mover)
}

// decidedRace returns the result of s (its side to move mover, the paths
// dM and dO) when walls can no longer change the race: the side that is
// ahead (the side to move when the paths are level) arrives first by
// walking when the other holds no walls.
func (s *qState) decidedRace(mover, dM, dO int) (raceResult, bool) {
	if dM <= dO && s.pos.WallsLeft(s.pos.ToMove().Other()) == 0 {
		return raceResult{moverWins: true, margin: dO - dM + 1, plies: 2*dM - 1}, true
	}
	if dO < dM && s.pos.WallsLeft(s.pos.ToMove()) == 0 {
		return raceResult{margin: dM - dO, plies: 2 * dO}, true
	}
	return raceResult{}, false
}

// playoutPly returns the playout's ply at s (its side to move mover, the
// paths dM and dO): the side to move's wall of
// largest race gain when it holds walls and that gains endgameGain or
// more, else its step along its shortest path (ok false when it has no
// pawn move), and the two paths after it. It adds the walls it tried to
// cost.
func (s *qState) playoutPly(mover, dM, dO int, cost *int64) (m quoridor.Move, dMAfter, dOAfter int, ok bool) {
	if s.pos.WallsLeft(s.pos.ToMove()) > 0 {
		if m, own, other, ok := s.endgameWall(mover, dM, dO, cost); ok {
			return m, own, other, true
		}
	}
	step, near := s.shortestStep(mover)
	if near == noStep {
		return 0, 0, 0, false
	}
	return step, int(near), dO, true
}

// endgameWall returns the playout's wall for the side to move (me, paths
// dMe and dOpp): the wall that adds most to the other path, when it gains
// the race endgameGain steps or more (ok false when there is none), and
// the two paths with it. It adds the walls it tried to cost.
func (s *qState) endgameWall(me, dMe, dOpp int, cost *int64) (m quoridor.Move, own, other int, ok bool) {
	opp := 1 - me
	g, a, o := s.cachedBestWall(opp, dOpp, cost)
	if g < endgameLeast {
		if endgamePairs && s.pos.WallsLeft(s.pos.ToMove()) >= 2 {
			return s.endgamePair(me, dMe, dOpp, cost)
		}
		return m, 0, 0, false
	}
	// bestWall measures a path only up to its cap: the wall must leave
	// both pawns a path (Q3.4).
	closed := s.closed
	closeWall(&closed, a%8, a/8, o)
	other = distWith(&closed, int(s.pos.Pawn(seatOfSide(opp))), qGoals[opp], noPath)
	own = distWith(&closed, int(s.pos.Pawn(seatOfSide(me))), qGoals[me], noPath)
	if other >= noPath || own >= noPath || (other-dOpp)-(own-dMe) < endgameLeast {
		return m, 0, 0, false
	}
	m, err := quoridor.PlaceWall(quoridor.SquareAt(a%8, a/8), o)
	return m, own, other, err == nil
}

// endgamePairs lets the playout's side holding walls place a wall that
// gains less than endgameGain when a second wall after it makes the two
// gain the race 2*endgameGain steps or more (a pocket no single wall
// makes). Lab variant pairs.
var endgamePairs = false

// endgamePair returns the first wall of the side to move's best pair (me,
// paths dMe and dOpp), as endgameWall does, when the pair gains the race
// 2*endgameGain steps or more: for each wall across the other pawn's
// shortest path, its own gain and the best single wall's after it.
func (s *qState) endgamePair(me, dMe, dOpp int, cost *int64) (m quoridor.Move, own, other int, ok bool) {
	opp := 1 - me
	oppPawn, myPawn := int(s.pos.Pawn(seatOfSide(opp))), int(s.pos.Pawn(seatOfSide(me)))
	hCut, vCut := s.placeable(s.pathCuts(oppPawn, opp, dOpp))
	best := 2*endgameGain - 1
	for _, o := range [2]quoridor.Orientation{quoridor.Horizontal, quoridor.Vertical} {
		cut := hCut
		if o == quoridor.Vertical {
			cut = vCut
		}
		for ; cut != 0; cut &= cut - 1 {
			a := bits.TrailingZeros64(cut)
			w, err := quoridor.PlaceWall(quoridor.SquareAt(a%8, a/8), o)
			if err != nil {
				continue
			}
			t := *s
			t.addWall(w)
			*cost++
			d1 := distWith(&t.closed, oppPawn, qGoals[opp], noPath)
			o1 := distWith(&t.closed, myPawn, qGoals[me], noPath)
			if d1 >= noPath || o1 >= noPath {
				continue
			}
			var tried int
			g2, _, _ := t.bestWallCounted(oppPawn, opp, d1, wallGainCap, false, &tried)
			*cost += int64(tried)
			// The second wall's cost to the own path is not measured: a
			// wall across the other pawn's path seldom crosses one's own.
			if gain := (d1 - dOpp) - (o1 - dMe) + g2; gain > best {
				best, m, own, other, ok = gain, w, o1, d1, true
			}
		}
	}
	return m, own, other, ok
}

// bestWalls remembers bestWall (wallGainCap, not layered) by the walls and
// the pawn's square, as wallGainCache does wallGain: the high bits of the
// key above the gain (4 bits), the anchor (6) and the orientation (1).
var bestWalls [1 << 16]atomic.Uint64

// cachedBestWall is bestWall for side's pawn (path d) through bestWalls,
// adding to cost the walls it tried, or 1 when it was remembered.
func (s *qState) cachedBestWall(side, d int, cost *int64) (int, int, quoridor.Orientation) {
	pawn := int(s.pos.Pawn(seatOfSide(side)))
	key := s.wallsKey(uint64(pawn<<1 | side))
	e := &bestWalls[key&(1<<16-1)]
	if v := e.Load(); v != 0 && v>>11 == key>>11 {
		*cost++
		o := quoridor.Horizontal
		if v>>10&1 == 1 {
			o = quoridor.Vertical
		}
		return int(v & 0xF), int(v >> 4 & 0x3F), o
	}
	var tried int
	g, a, o := s.bestWallCounted(pawn, side, d, wallGainCap, false, &tried)
	*cost += int64(tried)
	e.Store(key>>11<<11 | uint64(b2i(o == quoridor.Vertical))<<10 | uint64(a)<<4 | uint64(min(g, 15)))
	return g, a, o
}

// endgameCache remembers playouts' results by position hash, shared by
// every search (the positions recur across plies and iterations). An
// entry is two words written without a lock; a torn one fails its check
// and is a miss.
type endgameCache struct{ e [1 << 18][2]atomic.Uint64 }

var endgames endgameCache

func (c *endgameCache) load(key uint64) (raceResult, bool) {
	e := &c.e[key&(uint64(len(c.e))-1)]
	check, data := e[0].Load(), e[1].Load()
	if check^data != key || data == 0 {
		return raceResult{}, false
	}
	return raceResult{moverWins: data&1 == 1, margin: int(data >> 1 & 0xFF), plies: int(data >> 9 & 0x3FF)}, true
}

func (c *endgameCache) store(key uint64, r raceResult) {
	e := &c.e[key&(uint64(len(c.e))-1)]
	data := 1<<20 | uint64(r.plies&0x3FF)<<9 | uint64(r.margin&0xFF)<<1 | uint64(b2i(r.moverWins))
	e[0].Store(key ^ data)
	e[1].Store(data)
}
