package player

import (
	"math/bits"
	"sync/atomic"

	"tabuleiro.dev/pkg/engine/quoridor"
)

// What walls in hand can still do (issue 49). The expert valued its walls
// at a fixed rate by how many it held, and lost wall races: its opponent
// lengthened the expert's path by ten steps while the expert's ten walls,
// credited as fifteen steps, could no longer lengthen the opponent's
// fenced corridor by much. wallGain measures, for one pawn, the most steps
// a single wall placed now adds to its shortest path: the threat the
// other side's walls hold over it, and zero when its corridor is closed.

// expandWith returns the squares one open step from b with the closed
// exits c.
func expandWith(c *[4]bb, b bb) bb {
	return b.andNot(c[up]).shl(9).
		or(b.andNot(c[down]).shr(9)).
		or(b.andNot(c[right]).shl(1)).
		or(b.andNot(c[left]).shr(1)).board()
}

// distWith is dist of a pawn on square from to goal with the closed exits c,
// stopping (returning limit) once the distance reaches limit.
func distWith(c *[4]bb, from int, goal bb, limit int) int {
	front := bit(from)
	seen := front
	for d := 0; d < limit; d++ {
		if !front.and(goal).empty() {
			return d
		}
		front = expandWith(c, front).andNot(seen)
		if front.empty() {
			return noPath
		}
		seen = seen.or(front)
	}
	return limit
}

// wallGainCache remembers wallGain by the walls and the pawn's square: a
// pure function of them, so searches on several goroutines share it
// (atomically: a torn entry is only a miss). An entry is the key's high
// bits above eight bits of gain.
var wallGainCache [1 << 16]atomic.Uint64

// wallGainCap bounds a wall's gain as wallGain reports it.
const wallGainCap = 15

// wallGain returns the most steps one wall placed now would add to the
// shortest path of side's pawn, whose length is d, capped at limit (at
// most wallGainCap; the limit is part of the key).
// Any such wall cuts every shortest path, so it cuts one of them: only the
// walls across the edges of one shortest path are tried. Legality is
// checked against the walls on the board and this pawn's path only (not
// the other pawn's), a cheap approximation. With layered, only the walls
// that close every step between two layers of the shortest paths are
// tried (layerCuts): cheaper, and it misses a wall that cuts the paths in
// two layers at once (about 5% of positions).
func (s *qState) wallGain(side, d, limit int, layered bool) int {
	return s.wallsGain(side, d, limit, layered, 1)
}

// wallsGain is wallGain for k walls placed greedily (k at most 2): the
// best wall, then the best wall after it, their gains added, the sum
// capped at limit. What k walls in hand can still force on the other pawn
// (a pocket the other side's walls can close around it), cheaply: the
// greedy pair misses a pair whose walls gain only together.
func (s *qState) wallsGain(side, d, limit int, layered bool, k int) int {
	if d <= 0 || d >= noPath || k <= 0 {
		return 0
	}
	pawn := int(s.pos.Pawn(seatOfSide(side)))
	key := s.wallsKey(uint64(k<<17 | b2i(layered)<<16 | limit<<8 | pawn<<1 | side))
	e := &wallGainCache[key&(1<<16-1)]
	if v := e.Load(); v>>8 == key>>8 {
		return int(v & 0xFF)
	}
	g, a, o := s.bestWall(pawn, side, d, limit, layered)
	if k > 1 && g > 0 && g < min(limit, wallGainCap) {
		t := *s
		closeWall(&t.closed, a%8, a/8, o)
		if o == quoridor.Horizontal {
			t.hWalls |= 1 << uint(a)
		} else {
			t.vWalls |= 1 << uint(a)
		}
		g2, _, _ := t.bestWall(pawn, side, d+g, limit-g, layered)
		g += g2
	}
	e.Store(key>>8<<8 | uint64(g))
	return g
}

// wallsKey mixes the walls on the board with extra (a pawn's square and
// the question asked) into a cache key.
func (s *qState) wallsKey(extra uint64) uint64 {
	key := s.hWalls*0x9E3779B97F4A7C15 ^ s.vWalls*0xC2B2AE3D27D4EB4F ^ extra*0xD6E8FEB86659FD93
	key ^= key >> 29
	key *= 0xBF58476D1CE4E5B9
	return key ^ key>>32
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func (s *qState) computeWallGain(pawn, side, d, limit int, layered bool) int {
	g, _, _ := s.bestWall(pawn, side, d, limit, layered)
	return g
}

// bestWall is computeWallGain with the wall that gains it (its anchor,
// bit file+8*rank, and orientation; meaningless when the gain is 0).
func (s *qState) bestWall(pawn, side, d, limit int, layered bool) (int, int, quoridor.Orientation) {
	var tried int
	return s.bestWallCounted(pawn, side, d, limit, layered, &tried)
}

// bestWallCounted is bestWall, adding to tried the walls it tried.
func (s *qState) bestWallCounted(pawn, side, d, limit int, layered bool, tried *int) (int, int, quoridor.Orientation) {
	goal := qGoals[side]
	var hCut, vCut uint64 // candidate anchors (bit file+8*rank) per orientation
	if layered {
		hCut, vCut = s.layerCuts(pawn, side, d)
	} else {
		hCut, vCut = s.pathCuts(pawn, side, d)
	}
	hCut, vCut = s.placeable(hCut, vCut)
	best, bestA, bestO := 0, 0, quoridor.Horizontal
	limit = d + min(limit, wallGainCap)
	for _, o := range [2]quoridor.Orientation{quoridor.Horizontal, quoridor.Vertical} {
		cut := hCut
		if o == quoridor.Vertical {
			cut = vCut
		}
		for ; cut != 0; cut &= cut - 1 {
			a := bits.TrailingZeros64(cut)
			c := s.closed
			closeWall(&c, a%8, a/8, o)
			*tried++
			if nd := distWith(&c, pawn, goal, limit); nd < noPath && nd-d > best {
				if best, bestA, bestO = nd-d, a, o; nd == limit {
					return best, bestA, bestO // the cap: no wall can do more
				}
			}
		}
	}
	return best, bestA, bestO
}

// placeable drops from the anchors hCut and vCut (bit file+8*rank) those of
// the walls that the walls on the board overlap or cross (Q3.2, Q3.3).
func (s *qState) placeable(hCut, vCut uint64) (uint64, uint64) {
	const notFileA, notFileH = 0xFEFEFEFEFEFEFEFE, 0x7F7F7F7F7F7F7F7F
	h, v := s.hWalls, s.vWalls
	hCut &^= h | h<<1&notFileA | h>>1&notFileH | v
	vCut &^= v | v<<8 | v>>8 | h
	return hCut, vCut
}

// pathCuts returns the anchors of the walls across the steps of one
// shortest path of side's pawn (on pawn, path length d).
func (s *qState) pathCuts(pawn, side, d int) (hCut, vCut uint64) {
	goal := qGoals[side]
	// Layers of distance from the pawn, then one shortest path back from
	// the goal.
	var layers [noPath]bb
	front := bit(pawn)
	seen := front
	for i := 0; i < d; i++ {
		layers[i] = front
		front = s.expand(front).andNot(seen)
		seen = seen.or(front)
	}
	at := front.and(goal).lowest()
	for i := d - 1; i >= 0; i-- {
		prev := s.expand(bit(at)).and(layers[i]).lowest()
		lo, hi := min(at, prev), max(at, prev)
		f, r := lo%9, lo/9
		if hi-lo == 9 { // a step along a file: horizontal walls above lo
			if f < 8 {
				hCut |= 1 << uint(f+8*r)
			}
			if f > 0 {
				hCut |= 1 << uint(f-1+8*r)
			}
		} else { // a step along a rank: vertical walls right of lo
			if r < 8 {
				vCut |= 1 << uint(f+8*r)
			}
			if r > 0 {
				vCut |= 1 << uint(f+8*(r-1))
			}
		}
		at = prev
	}
	return hCut, vCut
}

// closeWall closes on c the edges of the wall anchored on file f, rank r.
func closeWall(c *[4]bb, f, r int, o quoridor.Orientation) {
	sq := f + 9*r
	if o == quoridor.Horizontal {
		pair := bit(sq).or(bit(sq + 1))
		c[up] = c[up].or(pair)
		c[down] = c[down].or(pair.shl(9))
		return
	}
	pair := bit(sq).or(bit(sq + 9))
	c[right] = c[right].or(pair)
	c[left] = c[left].or(pair.shl(1))
}

// layerCuts returns the anchors of the walls that close every step from
// one layer of the shortest paths of side's pawn (on pawn, path length d)
// to the next, in the layers of one or two steps.
func (s *qState) layerCuts(pawn, side, d int) (hCut, vCut uint64) {
	// Layers of distance from the pawn, then back from the goal the
	// squares on some shortest path (on[i] at distance i).
	var on [noPath]bb
	front := bit(pawn)
	seen := front
	for i := 0; i < d; i++ {
		on[i] = front
		front = s.expand(front).andNot(seen)
		seen = seen.or(front)
	}
	on[d] = front.and(qGoals[side])
	for i := d - 1; i >= 0; i-- {
		on[i] = on[i].and(s.expand(on[i+1]))
	}
	for i := 0; i < d; i++ {
		var steps [4]bb // per direction, the steps' sources
		n := 0
		for dir := range 4 {
			src := on[i].andNot(s.closed[dir])
			var dst bb
			switch dir {
			case up:
				dst = src.shl(9)
			case down:
				dst = src.shr(9)
			case right:
				dst = src.shl(1)
			default:
				dst = src.shr(1)
			}
			dst = dst.board().and(on[i+1])
			switch dir { // back to the sources that have a step
			case up:
				steps[dir] = dst.shr(9)
			case down:
				steps[dir] = dst.shl(9).board()
			case right:
				steps[dir] = dst.shr(1)
			default:
				steps[dir] = dst.shl(1).board()
			}
			n += steps[dir].count()
			if n > 2 {
				break
			}
		}
		if n > 2 {
			continue
		}
		h, v := ^uint64(0), ^uint64(0)
		for dir := range 4 {
			for b := steps[dir]; !b.empty(); {
				sq := b.lowest()
				b = b.andNot(bit(sq))
				lo := sq // the step's square nearer a1
				switch dir {
				case down:
					lo = sq - 9
				case left:
					lo = sq - 1
				}
				eh, ev := stepBlockers(lo, dir == up || dir == down)
				h &= eh
				v &= ev
			}
		}
		hCut |= h
		vCut |= v
	}
	return hCut, vCut
}

// stepBlockers returns the anchors (bit file+8*rank) of the horizontal and
// vertical walls that close the step from square lo to the square above it
// (along a file) or right of it (along a rank).
func stepBlockers(lo int, alongFile bool) (h, v uint64) {
	f, r := lo%9, lo/9
	if alongFile { // horizontal walls above lo
		if f < 8 {
			h |= 1 << uint(f+8*r)
		}
		if f > 0 {
			h |= 1 << uint(f-1+8*r)
		}
		return h, 0
	}
	if r < 8 { // vertical walls right of lo
		v |= 1 << uint(f+8*r)
	}
	if r > 0 {
		v |= 1 << uint(f+8*(r-1))
	}
	return 0, v
}
