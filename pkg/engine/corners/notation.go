package corners

import (
	"fmt"
	"strconv"
	"strings"

	"tabuleiro.dev/pkg/engine"
)

// Square is a square of the board: rank*16 + file, both from 0, so the same
// values serve the 8×8 board (files a–h, ranks 1–8) and Halma's 16×16
// board (files a–p, ranks 1–16) (C1).
type Square uint8

// File returns the file, 0 for a.
func (q Square) File() int { return int(q & 15) }

// Rank returns the rank, 0 for rank 1.
func (q Square) Rank() int { return int(q >> 4) }

// SquareAt returns the square on file f and rank r, both from 0; ok is false
// outside the 16×16 grid.
func SquareAt(f, r int) (q Square, ok bool) {
	if f < 0 || f > 15 || r < 0 || r > 15 {
		return 0, false
	}
	return Square(r*16 + f), true
}

// String returns the square in C1 notation, for example "c3" or "p16".
func (q Square) String() string {
	return string(rune('a'+q.File())) + strconv.Itoa(q.Rank()+1)
}

// ParseSquare parses a square: a file a–p and a rank 1–16 without leading
// zeros. It is the inverse of Square.String; errors are *engine.SyntaxError.
// Whether the square is on a given variant's board is for the position to
// check.
func ParseSquare(s string) (Square, error) {
	q, n, msg := scanSquare(s, 16)
	if msg != "" {
		return 0, &engine.SyntaxError{Input: s, Offset: n, Msg: msg}
	}
	if n != len(s) {
		return 0, &engine.SyntaxError{Input: s, Offset: n, Msg: "unexpected text after the square"}
	}
	return q, nil
}

// scanSquare reads one square of a size×size board (files a…, ranks 1…)
// at the start of s. It returns the square, the bytes used (or the offset
// of the error) and an error message, which names that board's files and
// ranks.
func scanSquare(s string, size int) (Square, int, string) {
	last := rune('a' + size - 1)
	if s == "" {
		return 0, 0, fmt.Sprintf("expected a square (files a–%c, ranks 1–%d)", last, size)
	}
	c := s[0]
	if c < 'a' || c > 'z' {
		return 0, 0, fmt.Sprintf("want a file letter a–%c, got %q", last, engine.FirstRune(s))
	}
	f := int(c - 'a')
	if f >= size {
		return 0, 0, fmt.Sprintf("file %c is off the %s (files a–%c)", c, boardName(size), last)
	}
	i := 1
	for i < len(s) && i < 4 && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	digits := s[1:i]
	if digits == "" {
		return 0, 1, fmt.Sprintf("want a rank 1–%d after the file letter", size)
	}
	// The offset is the first digit that no rank 1–size starts with: the 0
	// of "a0" and "a01", the 9 of "a9" on the 8×8 board, the second digit
	// of "a10" there.
	r := 0
	for j := 1; j < i; j++ {
		if r = r*10 + int(s[j]-'0'); r < 1 || r > size {
			return 0, j, fmt.Sprintf("square %s is off the %s (ranks 1–%d)", s[:i], boardName(size), size)
		}
	}
	return Square((r-1)*16 + f), i, ""
}

// boardName is "8×8 board", or "board" for the 16×16 grid of notation.
func boardName(size int) string {
	if size == 16 {
		return "board"
	}
	return fmt.Sprintf("%d×%d board", size, size)
}

// MaxPath is the most squares a path can hold: a chain never lands twice on
// a square, and jumps keep both coordinates' parity, so it lands on at most
// 63 of the 64 squares of its parity class on the 16×16 board.
const MaxPath = 64

// Move is one ply: the path of a piece, a step (two squares) or a chain of
// jumps (C1, C3). It is a comparable value. The zero value is no move and is
// never legal.
type Move struct {
	n    uint8
	path [MaxPath]Square
}

// NewMove returns the move along path, which must hold 2 to MaxPath squares.
// It checks the length only: legality is for the position.
func NewMove(path ...Square) (Move, bool) {
	var m Move
	if len(path) < 2 || len(path) > MaxPath {
		return m, false
	}
	m.n = uint8(len(path))
	copy(m.path[:], path)
	return m, true
}

// Len returns the number of squares of the path (2 for a step or a single
// jump); 0 for the zero Move.
func (m Move) Len() int { return int(m.n) }

// At returns the i-th square of the path, from 0.
func (m Move) At(i int) Square { return m.path[i] }

// From returns the starting square.
func (m Move) From() Square { return m.path[0] }

// To returns the square where the piece stops.
func (m Move) To() Square {
	if m.n == 0 {
		return 0
	}
	return m.path[m.n-1]
}

// Path returns a copy of the squares of the path.
func (m Move) Path() []Square { return append([]Square(nil), m.path[:m.n]...) }

// IsJump reports whether the move is a jump chain rather than a step.
func (m Move) IsJump() bool {
	if m.n < 2 {
		return false
	}
	a, b := m.path[0], m.path[1]
	return absInt(a.File()-b.File()) > 1 || absInt(a.Rank()-b.Rank()) > 1
}

// String returns the path joined by "-", for example "c3-e3-e5"; "(none)"
// for the zero Move. ParseMove is its inverse.
func (m Move) String() string {
	if m.n == 0 {
		return "(none)"
	}
	var sb strings.Builder
	for i := range int(m.n) {
		if i > 0 {
			sb.WriteByte('-')
		}
		sb.WriteString(m.path[i].String())
	}
	return sb.String()
}

// ParseMove parses a ply in C1 notation: two or more squares joined by "-".
// It checks syntax only (squares of the 16×16 grid); Position.ParsePly also
// checks the variant's board and resolves shorthand. Errors are
// *engine.SyntaxError.
func ParseMove(s string) (Move, error) { return parseMove(s, 16) }

// parseMove is ParseMove for a size×size board: its error messages name
// that board's files and ranks.
func parseMove(s string, size int) (Move, error) {
	var m Move
	off := 0
	for {
		if m.n == MaxPath {
			return Move{}, &engine.SyntaxError{Input: s, Offset: off, Msg: "path longer than 64 squares"}
		}
		q, n, msg := scanSquare(s[off:], size)
		if msg != "" {
			return Move{}, &engine.SyntaxError{Input: s, Offset: off + n, Msg: msg}
		}
		m.path[m.n] = q
		m.n++
		off += n
		if off == len(s) {
			break
		}
		if s[off] != '-' {
			return Move{}, &engine.SyntaxError{Input: s, Offset: off, Msg: "expected '-' between squares"}
		}
		off++
	}
	if m.n < 2 {
		return Move{}, &engine.SyntaxError{Input: s, Offset: off, Msg: "a ply needs at least two squares, as in c3-d3"}
	}
	return m, nil
}

func absInt(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
