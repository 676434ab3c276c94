package quoridor

import "math/bits"

// board is a Position played forward and back in place (make/undo) by
// Perft.
type board struct {
	Position
}

// undo is what board.make saves for board.unmake.
type undo struct {
	closeH, closeV uint64
	from           Square
	last           Move
}

func newBoard(p Position) *board { return &board{Position: p} }

// make plays the legal ply m in place and returns what unmake needs.
func (b *board) make(m Move) undo {
	side := b.side()
	u := undo{closeH: b.closeH, closeV: b.closeV, from: b.pawns[side], last: b.last}
	if m&kindMask == kindPawn {
		b.pawns[side] = Square(m & indexMask)
	} else {
		b.addWall(m)
		b.wallsLeft[side]--
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
	b.last = u.last
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
