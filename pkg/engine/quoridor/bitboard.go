package quoridor

import "math/bits"

// bitboard is a set of squares: bit i of the 128-bit value (lo holds bits
// 0–63, hi bits 64–80) is square i. Bits above 80 are always zero.
type bitboard struct{ lo, hi uint64 }

func bitOf(s Square) bitboard {
	if s < 64 {
		return bitboard{lo: 1 << uint(s)}
	}
	return bitboard{hi: 1 << uint(s-64)}
}

func (b bitboard) has(s Square) bool {
	if s < 64 {
		return b.lo>>uint(s)&1 != 0
	}
	return b.hi>>uint(s-64)&1 != 0
}

func (b bitboard) or(c bitboard) bitboard     { return bitboard{b.lo | c.lo, b.hi | c.hi} }
func (b bitboard) and(c bitboard) bitboard    { return bitboard{b.lo & c.lo, b.hi & c.hi} }
func (b bitboard) andNot(c bitboard) bitboard { return bitboard{b.lo &^ c.lo, b.hi &^ c.hi} }
func (b bitboard) empty() bool                { return b.lo|b.hi == 0 }
func (b bitboard) count() int                 { return bits.OnesCount64(b.lo) + bits.OnesCount64(b.hi) }

// up moves every square one rank up (+9); down one rank down (-9); right
// one file right (+1); left one file left (-1). Callers clear the squares
// that may not move that way first (the blocked-edge masks include the
// board's edges), so nothing wraps or leaves the board.
func (b bitboard) up() bitboard    { return bitboard{b.lo << 9, b.hi<<9 | b.lo>>55} }
func (b bitboard) down() bitboard  { return bitboard{b.lo>>9 | b.hi<<55, b.hi >> 9} }
func (b bitboard) right() bitboard { return bitboard{b.lo << 1, b.hi<<1 | b.lo>>63} }
func (b bitboard) left() bitboard  { return bitboard{b.lo>>1 | b.hi<<63, b.hi >> 1} }

// first returns the lowest square of a non-empty set.
func (b bitboard) first() Square {
	if b.lo != 0 {
		return Square(bits.TrailingZeros64(b.lo))
	}
	return Square(64 + bits.TrailingZeros64(b.hi))
}

// Directions, indexing edges and the step table. The perpendiculars of d
// are (d+1)%4 and (d+3)%4; its opposite is (d+2)%4.
const (
	north = iota
	east
	south
	west
)

// step is the square offset of one move in each direction.
var step = [4]Square{north: 9, east: 1, south: -9, west: -1}

// edges holds, for each direction, the squares a pawn may not leave that
// way: the board's edge plus every wall placed (Q2.1, Q3.5).
type edges [4]bitboard

// expand returns b plus every square one unblocked step from it.
func (g *edges) expand(b bitboard) bitboard {
	nl, nh := b.lo&^g[north].lo, b.hi&^g[north].hi
	sl, sh := b.lo&^g[south].lo, b.hi&^g[south].hi
	el, eh := b.lo&^g[east].lo, b.hi&^g[east].hi
	wl, wh := b.lo&^g[west].lo, b.hi&^g[west].hi
	return bitboard{
		b.lo | nl<<9 | sl>>9 | sh<<55 | el<<1 | wl>>1 | wh<<63,
		b.hi | nh<<9 | nl>>55 | sh>>9 | eh<<1 | el>>63 | wh>>1,
	}
}

// reaches reports whether a pawn on from can reach goal through the walls
// of g, pawns not being obstacles (Q3.4). The flood fill stops as soon as it
// touches the goal.
func (g *edges) reaches(from, goal bitboard) bool {
	r := from
	for r.and(goal).empty() {
		n := g.expand(r)
		if n == r {
			return false
		}
		r = n
	}
	return true
}

// withWall returns g with the wall m added.
func (g edges) withWall(m Move) edges {
	a := m.anchor()
	if m&kindMask == kindH {
		g[north] = g[north].or(wallTables.hN[a])
		g[south] = g[south].or(wallTables.hS[a])
	} else {
		g[east] = g[east].or(wallTables.vE[a])
		g[west] = g[west].or(wallTables.vW[a])
	}
	return g
}

// Masks of the board, built once.
var (
	rankMask   = buildRanks()
	fileMask   = buildFiles()
	wallTables = buildWallTables()
	emptyEdges = edges{north: rankMask[8], east: fileMask[8], south: rankMask[0], west: fileMask[0]}
)

func buildRanks() (r [9]bitboard) {
	for s := Square(0); s <= 80; s++ {
		r[s.Rank()] = r[s.Rank()].or(bitOf(s))
	}
	return r
}

func buildFiles() (f [9]bitboard) {
	for s := Square(0); s <= 80; s++ {
		f[s.File()] = f[s.File()].or(bitOf(s))
	}
	return f
}

// wallMasks are, per anchor (file + 8*rank), the edges a wall closes: a
// horizontal wall closes the north side of its anchor square and the square
// right of it and the south side of the two squares above them; a vertical
// wall closes the east side of its anchor square and the square above it
// and the west side of the two squares right of them (Q1).
type wallMasks struct {
	hN, hS, vE, vW [64]bitboard
}

func buildWallTables() *wallMasks {
	t := new(wallMasks)
	for a := range 64 {
		f, r := a%8, a/8
		s := SquareAt(f, r)
		t.hN[a] = bitOf(s).or(bitOf(s + 1))
		t.hS[a] = bitOf(s + 9).or(bitOf(s + 10))
		t.vE[a] = bitOf(s).or(bitOf(s + 9))
		t.vW[a] = bitOf(s + 1).or(bitOf(s + 10))
	}
	return t
}

// Anchor-set masks (bit file + 8*rank).
const (
	anchorFileA uint64 = 0x0101010101010101
	anchorFileH uint64 = 0x8080808080808080
	anchorRank1 uint64 = 0xff
	anchorRank8 uint64 = 0xff << 56
)
