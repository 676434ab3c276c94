package quoridor

import (
	"fmt"

	"tabuleiro.dev/pkg/engine"
)

// Square is one of the 81 squares, numbered rank-major from a1 (0) to i9
// (80): file + 9*rank, both counted from zero (Q1).
type Square int8

// NoSquare is the zero-free "no square" value; it is never on the board.
const NoSquare Square = -1

// SquareAt returns the square on file (0 for a … 8 for i) and rank (0 for 1
// … 8 for 9), or NoSquare when either is off the board.
func SquareAt(file, rank int) Square {
	if file < 0 || file > 8 || rank < 0 || rank > 8 {
		return NoSquare
	}
	return Square(rank*9 + file)
}

// Valid reports whether s is on the board.
func (s Square) Valid() bool { return s >= 0 && s <= 80 }

// File returns the file of s, 0 for a … 8 for i.
func (s Square) File() int { return int(s) % 9 }

// Rank returns the rank of s, 0 for rank 1 … 8 for rank 9.
func (s Square) Rank() int { return int(s) / 9 }

// String returns the square in Q1 notation, for example "e1"; "-" for a
// square off the board.
func (s Square) String() string {
	if !s.Valid() {
		return "-"
	}
	return string([]byte{byte('a' + s.File()), byte('1' + s.Rank())})
}

// ParseSquare parses a square in Q1 notation ("a1" … "i9"). Errors are
// *engine.SyntaxError.
func ParseSquare(s string) (Square, error) {
	file, rank, n, err := parseCoords(s)
	if err != nil {
		return NoSquare, err
	}
	if n != len(s) {
		return NoSquare, &engine.SyntaxError{Input: s, Offset: n, Msg: fmt.Sprintf("unexpected %q after the square", s[n:])}
	}
	return SquareAt(file, rank), nil
}

// parseCoords reads a file letter and a rank number at the start of s and
// checks that they lie on the board. It returns the zero-based file and
// rank and the bytes read.
func parseCoords(s string) (file, rank, n int, err error) {
	if s == "" {
		return 0, 0, 0, &engine.SyntaxError{Input: s, Offset: 0, Msg: "empty ply: want a square such as e2 or a wall such as e3h"}
	}
	c := s[0]
	if c < 'a' || c > 'z' {
		return 0, 0, 0, &engine.SyntaxError{Input: s, Offset: 0, Msg: fmt.Sprintf("want a file letter a–i, got %q", engine.FirstRune(s))}
	}
	if c > 'i' {
		return 0, 0, 0, &engine.SyntaxError{Input: s, Offset: 0, Msg: fmt.Sprintf("file %c is off the board (files a–i)", c)}
	}
	end := 1
	for end < len(s) && s[end] >= '0' && s[end] <= '9' {
		end++
	}
	if end == 1 {
		return 0, 0, 0, &engine.SyntaxError{Input: s, Offset: 1, Msg: "want a rank 1–9 after the file letter"}
	}
	// The offset is the first digit that no rank 1–9 starts with: the 0 of
	// "e0" and "e02", the second digit of "e10".
	for n = 1; n < end; n++ {
		if rank = rank*10 + int(s[n]-'0'); rank < 1 || rank > 9 {
			return 0, 0, 0, &engine.SyntaxError{Input: s, Offset: n, Msg: fmt.Sprintf("square %s is off the board (ranks 1–9)", s[:end])}
		}
	}
	return int(c - 'a'), rank - 1, n, nil
}

// Orientation is the direction a wall lies in. The zero value is unset.
type Orientation int8

// The orientations (Q1): a horizontal wall lies between two ranks, a
// vertical one between two files.
const (
	Horizontal Orientation = iota + 1
	Vertical
)

// String returns "h" or "v", the wall suffix of Q1 notation.
func (o Orientation) String() string {
	switch o {
	case Horizontal:
		return "h"
	case Vertical:
		return "v"
	default:
		return "?"
	}
}

// Move is one Quoridor ply, bit-packed: the kind in bits 7–8 (pawn,
// horizontal wall, vertical wall) and the destination square (0–80) or the
// wall's anchor (file + 8*rank, 0–63) in bits 0–6. The zero value NoMove is
// never legal. Moves ordered by value are in canonical order: pawn moves by
// square, then horizontal walls, then vertical walls, each by anchor a1…h8.
type Move uint16

// NoMove is the zero Move: no ply.
const NoMove Move = 0

const (
	kindShift = 7
	kindPawn  = 1 << kindShift
	kindH     = 2 << kindShift
	kindV     = 3 << kindShift
	kindMask  = 3 << kindShift
	indexMask = 1<<kindShift - 1
)

// PawnTo returns the pawn move to sq (a step or a jump, Q1); NoMove if sq is
// off the board.
func PawnTo(sq Square) Move {
	if !sq.Valid() {
		return NoMove
	}
	return kindPawn | Move(sq)
}

// PlaceWall returns the wall anchored at at (the square nearest a1 of the
// four the wall touches, Q1) lying in orientation o. Anchors run a1–h8.
func PlaceWall(at Square, o Orientation) (Move, error) {
	if !at.Valid() || at.File() > 7 || at.Rank() > 7 {
		return NoMove, fmt.Errorf("wall anchor %s is outside a1–h8", at)
	}
	idx := Move(at.Rank()*8 + at.File())
	switch o {
	case Horizontal:
		return kindH | idx, nil
	case Vertical:
		return kindV | idx, nil
	}
	return NoMove, fmt.Errorf("wall orientation %d is neither horizontal nor vertical", o)
}

// wallMove returns the wall with anchor index a (file + 8*rank).
func wallMove(a int, o Orientation) Move {
	if o == Horizontal {
		return kindH | Move(a)
	}
	return kindV | Move(a)
}

// IsPawn reports whether m moves the pawn.
func (m Move) IsPawn() bool { return m&kindMask == kindPawn && int(m&indexMask) <= 80 }

// IsWall reports whether m places a wall.
func (m Move) IsWall() bool {
	k := m & kindMask
	return (k == kindH || k == kindV) && int(m&indexMask) < 64
}

// To returns the destination square of a pawn move; NoSquare for a wall.
func (m Move) To() Square {
	if !m.IsPawn() {
		return NoSquare
	}
	return Square(m & indexMask)
}

// At returns the anchor square of a wall (a1–h8); NoSquare for a pawn move.
func (m Move) At() Square {
	if !m.IsWall() {
		return NoSquare
	}
	a := int(m & indexMask)
	return SquareAt(a%8, a/8)
}

// Orientation returns the orientation of a wall; zero for a pawn move.
func (m Move) Orientation() Orientation {
	if !m.IsWall() {
		return 0
	}
	if m&kindMask == kindH {
		return Horizontal
	}
	return Vertical
}

// anchor returns the wall's anchor index, file + 8*rank.
func (m Move) anchor() int { return int(m & indexMask) }

// String returns the ply in Q1 notation ("e2", "e3h", "e3v"); "-" for
// NoMove or any value that is not a move.
func (m Move) String() string {
	switch {
	case m.IsPawn():
		return m.To().String()
	case m.IsWall():
		return m.At().String() + m.Orientation().String()
	}
	return "-"
}

// ParseMove parses a ply in Q1 notation: a destination square ("e2") or a
// wall ("e3h", "e3v", anchors a1–h8). It checks syntax and squares, not
// legality. Errors are *engine.SyntaxError.
func ParseMove(s string) (Move, error) {
	file, rank, n, err := parseCoords(s)
	if err != nil {
		return NoMove, err
	}
	sq := SquareAt(file, rank)
	if n == len(s) {
		return PawnTo(sq), nil
	}
	var o Orientation
	switch s[n] {
	case 'h':
		o = Horizontal
	case 'v':
		o = Vertical
	default:
		return NoMove, &engine.SyntaxError{Input: s, Offset: n, Msg: fmt.Sprintf("unexpected %q after square %s: want h or v for a wall", s[n:], sq)}
	}
	if n+1 != len(s) {
		return NoMove, &engine.SyntaxError{Input: s, Offset: n + 1, Msg: fmt.Sprintf("unexpected %q after wall %s", s[n+1:], s[:n+1])}
	}
	m, err := PlaceWall(sq, o)
	if err != nil {
		// The file i, else the rank 9, is what no anchor has.
		off := 0
		if sq.File() <= 7 {
			off = 1
		}
		return NoMove, &engine.SyntaxError{Input: s, Offset: off, Msg: err.Error()}
	}
	return m, nil
}
