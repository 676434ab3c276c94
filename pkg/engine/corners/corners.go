// Package corners implements Corners (Ugolki) and its eight variants, as
// RULES.md section C defines them: classic-3x3, classic-3x4, diagonal-3x3,
// diagonal-3x4, triangle, square-4x4, halma-16x16 and training.
//
// Board is the fast value type for generation and search (fixed-size
// bitsets, no pointers); Position wraps a Board with the last ply and the
// repetition history and implements engine.Position. Move holds a ply's
// whole path in a fixed-size array, so it is a comparable value.
//
// Decisions this package takes where RULES.md is silent (each is tested):
//   - Blockers (C5.3, C6.1): a piece with no step and no jump is blocked by
//     the pieces on its neighbouring squares and by the pieces on the squares
//     just beyond occupied neighbours. C5.3 excuses a piece at home if at
//     least one of its blockers is an opponent piece.
//   - C6.1 is checked for every opponent piece after the ply, not only for the
//     ones the ply touches.
//   - C4 with no reply: if white has filled black's home and black has no
//     legal ply, white wins (goal) rather than C6.2's draw, since black can no
//     longer equalise.
//   - training has no deadline and no repetition rule (C6.4 is about two
//     players); it keeps the 80-move limit, which ends it as a draw
//     (move-limit).
//   - Threefold repetition compares 64-bit Zobrist hashes of the pieces and
//     the side to move.
package corners

import (
	"fmt"
	"math/bits"

	"tabuleiro.dev/pkg/engine"
)

// Directions in the order of C1's tie-break: up, right, down, left, then the
// diagonals in the same turning order.
var dirDelta = [8][2]int{{0, 1}, {1, 0}, {0, -1}, {-1, 0}, {1, 1}, {1, -1}, {-1, -1}, {-1, 1}}

// bitset is a set of squares, indexed like Square (rank*16 + file).
type bitset [4]uint64

func (s *bitset) has(q Square) bool { return s[q>>6]&(1<<(q&63)) != 0 }
func (s *bitset) set(q Square)      { s[q>>6] |= 1 << (q & 63) }
func (s *bitset) clear(q Square)    { s[q>>6] &^= 1 << (q & 63) }

func (s bitset) or(t bitset) bitset {
	return bitset{s[0] | t[0], s[1] | t[1], s[2] | t[2], s[3] | t[3]}
}

func (s bitset) and(t bitset) bitset {
	return bitset{s[0] & t[0], s[1] & t[1], s[2] & t[2], s[3] & t[3]}
}

func (s bitset) andNot(t bitset) bitset {
	return bitset{s[0] &^ t[0], s[1] &^ t[1], s[2] &^ t[2], s[3] &^ t[3]}
}

func (s bitset) count() int {
	return bits.OnesCount64(s[0]) + bits.OnesCount64(s[1]) + bits.OnesCount64(s[2]) + bits.OnesCount64(s[3])
}

func (s bitset) empty() bool { return s[0]|s[1]|s[2]|s[3] == 0 }

// squares appends the members of s in increasing order.
func (s bitset) squares(dst []Square) []Square {
	for w := range 4 {
		for x := s[w]; x != 0; x &= x - 1 {
			dst = append(dst, Square(w*64+bits.TrailingZeros64(x)))
		}
	}
	return dst
}

// geometry holds the neighbour table of one board size.
type geometry struct {
	size int
	// step[q][d] is the neighbour of q in direction d, or -1 off the board.
	step [256][8]int16
	// near[k][q] holds the squares whose blocked state (C6.1) depends on q:
	// those one or two squares from q in a direction, k = 0 for the 4
	// orthogonal directions and 1 for all 8.
	near [2][256]bitset
}

func newGeometry(size int) geometry {
	g := geometry{size: size}
	for q := range 256 {
		f, r := q&15, q>>4
		for d, dd := range dirDelta {
			g.step[q][d] = -1
			nf, nr := f+dd[0], r+dd[1]
			if f < size && r < size && nf >= 0 && nf < size && nr >= 0 && nr < size {
				g.step[q][d] = int16(nr*16 + nf)
			}
		}
	}
	for k, nd := range []int{4, 8} {
		for q := range 256 {
			for d := range nd {
				if n := g.step[q][d]; n >= 0 {
					g.near[k][q].set(Square(n))
					if l := g.step[n][d]; l >= 0 {
						g.near[k][q].set(Square(l))
					}
				}
			}
		}
	}
	return g
}

// geometries: index 0 is the 8×8 board, 1 the 16×16 Halma board.
var geometries = [2]geometry{newGeometry(8), newGeometry(16)}

// spec is one variant's rules (C2).
type spec struct {
	v            engine.Variant
	geo          uint8 // index into geometries
	size         int
	dirs         int       // 4 orthogonal, or 8 with the diagonals
	home         [2]bitset // white's and black's homes
	pieces       int
	deadline     int // C5.1's move number; 0 for none
	limit        int // C6.3's last move
	forbidBlocks bool
	solo         bool
}

// rect returns the squares a1 to (files, ranks).
func rect(files, ranks int) []string {
	var out []string
	for r := range ranks {
		for f := range files {
			out = append(out, fmt.Sprintf("%c%d", 'a'+f, r+1))
		}
	}
	return out
}

func newSpec(id, name string, size int, home []string, dirs, deadline, limit int, forbid, solo bool) spec {
	sp := spec{
		v: engine.Variant{
			Game: engine.Corners, ID: id, Name: name, Players: 2, Draws: true,
			DefaultBaseMS: 300000, DefaultIncrementMS: 3000,
		},
		size: size, dirs: dirs, pieces: len(home), deadline: deadline, limit: limit,
		forbidBlocks: forbid, solo: solo,
	}
	if size == 16 {
		sp.geo = 1
	}
	switch id {
	case "classic-3x3", "classic-3x4", "diagonal-3x3":
		sp.v.Rated = true // C7
	}
	if solo {
		sp.v.Players, sp.v.Draws, sp.v.DefaultBaseMS, sp.v.DefaultIncrementMS = 1, false, 0, 0
	}
	for _, s := range home {
		q, err := ParseSquare(s)
		if err != nil {
			panic(err) // the tables below are constants
		}
		sp.home[0].set(q)
		sp.home[1].set(mirror(q, size))
	}
	return sp
}

// mirror reflects q through the centre of a size×size board (C2).
func mirror(q Square, size int) Square {
	return Square((size-1-q.Rank())*16 + size - 1 - q.File())
}

var specs = [...]spec{
	newSpec("classic-3x3", "Classic 3×3", 8, rect(3, 3), 4, 40, 80, true, false),
	newSpec("classic-3x4", "Classic 3×4", 8, rect(4, 3), 4, 40, 80, true, false),
	newSpec("diagonal-3x3", "Diagonal 3×3", 8, rect(3, 3), 8, 30, 80, false, false),
	newSpec("diagonal-3x4", "Diagonal 3×4", 8, rect(4, 3), 8, 30, 80, false, false),
	newSpec("triangle", "Triangular home", 8,
		[]string{"a1", "b1", "c1", "d1", "a2", "b2", "c2", "a3", "b3", "a4"}, 4, 40, 80, true, false),
	newSpec("square-4x4", "Home 4×4", 8, rect(4, 4), 4, 40, 80, true, false),
	newSpec("halma-16x16", "Halma 16×16", 16, []string{
		"a1", "b1", "c1", "d1", "e1", "a2", "b2", "c2", "d2", "e2",
		"a3", "b3", "c3", "d3", "a4", "b4", "c4", "a5", "b5",
	}, 8, 60, 200, false, false),
	newSpec("training", "Training room", 8, rect(3, 3), 4, 0, 80, false, true),
}

// Variants returns the eight Corners variants of C2, in RULES.md's order.
func Variants() []engine.Variant {
	out := make([]engine.Variant, len(specs))
	for i := range specs {
		out[i] = specs[i].v
	}
	return out
}

func lookup(id string) (uint8, bool) {
	for i := range specs {
		if specs[i].v.ID == id {
			return uint8(i), true
		}
	}
	return 0, false
}

// zobrist holds the hash keys: one per seat and square, and one for black
// to move.
type zobristKeys struct {
	piece [2][256]uint64
	black uint64
}

func newZobrist() zobristKeys {
	var z zobristKeys
	x := uint64(0x9e3779b97f4a7c15) // splitmix64, fixed seed: hashes are stable
	next := func() uint64 {
		x += 0x9e3779b97f4a7c15
		v := x
		v = (v ^ (v >> 30)) * 0xbf58476d1ce4e5b9
		v = (v ^ (v >> 27)) * 0x94d049bb133111eb
		return v ^ (v >> 31)
	}
	for s := range 2 {
		for q := range 256 {
			z.piece[s][q] = next()
		}
	}
	z.black = next()
	return z
}

var zobrist = newZobrist()

func tz(x uint64) int { return bits.TrailingZeros64(x) }
