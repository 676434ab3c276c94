package quoridor

import "math/bits"

// board is a Position played forward and back in place (make/undo) by
// Perft, with a path of each pawn to its goal kept across plies: a path
// stays valid until a wall cuts one of its edges or the pawn jumps, and
// is found again only when a wall needs it.
type board struct {
	Position
	paths
	layers [81]bitboard // scratch space for pathCuts
}

// undo is what board.make saves for board.unmake.
type undo struct {
	closeH, closeV uint64
	paths          paths
	from           Square
	last           Move
}

func newBoard(p Position) *board { return &board{Position: p} }

// make plays the legal ply m in place and returns what unmake needs.
func (b *board) make(m Move) undo {
	side := b.side()
	u := undo{closeH: b.closeH, closeV: b.closeV, paths: b.paths, from: b.pawns[side], last: b.last}
	if m&kindMask == kindPawn {
		to := Square(m & indexMask)
		from := b.pawns[side]
		// A step adds one open edge in front of the path: still a path.
		// A jump leaves it; the path is found again when needed.
		switch to - from {
		case 9:
			b.cut[side][0] |= wallTables.cutN[from]
		case -9:
			b.cut[side][0] |= wallTables.cutN[to]
		case 1:
			b.cut[side][1] |= wallTables.cutE[from]
		case -1:
			b.cut[side][1] |= wallTables.cutE[to]
		default:
			b.ok[side] = false
		}
		b.pawns[side] = to
	} else {
		b.addWall(m)
		b.wallsLeft[side]--
		o := 0
		if m&kindMask == kindV {
			o = 1
		}
		a := uint(m.anchor())
		for s := range 2 {
			if b.cut[s][o]>>a&1 != 0 {
				b.ok[s] = false
			}
		}
	}
	b.plies++
	b.last = m
	return u
}

// unmake takes back m, which make played and returned u for.
func (b *board) unmake(m Move, u *undo) {
	b.plies--
	side := b.side()
	if m&kindMask == kindPawn {
		b.pawns[side] = u.from
	} else {
		a := m.anchor()
		if m&kindMask == kindH {
			b.edges[north] = b.edges[north].andNot(wallTables.hN[a])
			b.edges[south] = b.edges[south].andNot(wallTables.hS[a])
			b.hWalls &^= 1 << a
		} else {
			b.edges[east] = b.edges[east].andNot(wallTables.vE[a])
			b.edges[west] = b.edges[west].andNot(wallTables.vW[a])
			b.vWalls &^= 1 << a
		}
		b.wallsLeft[side]++
		b.closeH, b.closeV = u.closeH, u.closeV
	}
	// A path found below stays a path here when the pawn stands on the
	// same square: walls taken back only open edges.
	for s := range 2 {
		if u.paths.ok[s] || !b.ok[s] || (s == side && m&kindMask == kindPawn) {
			b.cut[s] = u.paths.cut[s]
			b.ok[s] = u.paths.ok[s]
		}
	}
	b.last = u.last
}

// legalWalls is Position.legalWalls with the board's kept paths.
func (b *board) legalWalls() (hs, vs uint64) {
	hs, vs = b.freeWalls()
	if (hs&b.closeH)|(vs&b.closeV) == 0 {
		return hs, vs
	}
	return b.resolveWalls(hs, vs, &b.paths, &b.layers)
}

func (b *board) countLegal() uint64 {
	n := b.countPawnMoves()
	if b.wallsLeft[b.side()] > 0 {
		hs, vs := b.legalWalls()
		n += bits.OnesCount64(hs) + bits.OnesCount64(vs)
	}
	return uint64(n)
}

func (b *board) legalMoves(dst []Move) []Move {
	dst = b.appendPawnMoves(dst)
	if b.wallsLeft[b.side()] == 0 {
		return dst
	}
	hs, vs := b.legalWalls()
	return appendWalls(dst, hs, vs)
}

// perft is Position.Perft for an ongoing game and depth >= 1.
func (b *board) perft(depth int) uint64 {
	if depth == 1 {
		return b.countLegal()
	}
	var buf [maxMoves + 8]Move
	var n uint64
	for _, m := range b.legalMoves(buf[:0]) {
		u := b.make(m)
		if b.over() {
			n++
		} else {
			n += b.perft(depth - 1)
		}
		b.unmake(m, &u)
	}
	return n
}
