package banqi

import "tabuleiro.dev/pkg/engine"

// MoveKind says what a ply does (B3).
type MoveKind uint8

// The kinds of ply. Zero is no ply.
const (
	NoMoveKind MoveKind = iota
	// KindReveal turns a face-down piece over: written as its square, "c2".
	KindReveal
	// KindStep moves a revealed piece one square onto an empty square:
	// "c2-c3".
	KindStep
	// KindCapture takes a revealed enemy piece: "c2xc3" (a cannon's capture
	// is written from its square to the target's, B1).
	KindCapture
)

// Move is a ply packed in 12 bits: from square (bits 0–4), to square (bits
// 5–9) and kind (bits 10–11). A reveal has from == to. The zero value NoMove
// is never legal. Move implements engine.Ply.
type Move uint16

// NoMove is the zero Move.
const NoMove Move = 0

func pack(k MoveKind, from, to Square) Move {
	return Move(uint16(from) | uint16(to)<<5 | uint16(k)<<10)
}

// RevealMove returns the reveal of sq, or NoMove if sq is not a square.
func RevealMove(sq Square) Move {
	if !sq.Valid() {
		return NoMove
	}
	return pack(KindReveal, sq, sq)
}

// StepMove returns the step from one square to another, or NoMove if either
// is not a square or they are the same. Whether the step is legal is for
// the position to say.
func StepMove(from, to Square) Move {
	if !from.Valid() || !to.Valid() || from == to {
		return NoMove
	}
	return pack(KindStep, from, to)
}

// CaptureMove returns the capture from one square onto another, or NoMove
// if either is not a square or they are the same.
func CaptureMove(from, to Square) Move {
	if !from.Valid() || !to.Valid() || from == to {
		return NoMove
	}
	return pack(KindCapture, from, to)
}

// Kind returns what the ply does.
func (m Move) Kind() MoveKind { return MoveKind(m >> 10 & 3) }

// From returns the square revealed, or the square moved from.
func (m Move) From() Square { return Square(m & 31) }

// To returns the square moved to (the revealed square for a reveal).
func (m Move) To() Square { return Square(m >> 5 & 31) }

// String returns the ply in B1 notation: "c2", "c2-c3" or "c2xc3"; "-" for
// NoMove.
func (m Move) String() string {
	switch m.Kind() {
	case KindReveal:
		return m.From().String()
	case KindStep:
		return m.From().String() + "-" + m.To().String()
	case KindCapture:
		return m.From().String() + "x" + m.To().String()
	}
	return "-"
}

// ParseMove parses a ply in B1 notation: a reveal "c2", a step "c2-c3" or a
// capture "c2xc3" (lower case). It checks syntax and squares, not legality:
// "a1-h4" parses and no position allows it. It is the exact inverse of
// Move.String; errors are *engine.SyntaxError.
func ParseMove(s string) (Move, error) {
	from, err := parseSquareAt(s, 0)
	if err != nil {
		return NoMove, err
	}
	if len(s) == 2 {
		return RevealMove(from), nil
	}
	var k MoveKind
	switch s[2] {
	case '-':
		k = KindStep
	case 'x':
		k = KindCapture
	default:
		return NoMove, &engine.SyntaxError{Input: s, Offset: 2, Msg: "want '-' (step), 'x' (capture) or the end of a reveal"}
	}
	to, err := parseSquareAt(s, 3)
	if err != nil {
		return NoMove, err
	}
	if len(s) != 5 {
		return NoMove, &engine.SyntaxError{Input: s, Offset: 5, Msg: "want the end of the ply"}
	}
	if from == to {
		return NoMove, &engine.SyntaxError{Input: s, Offset: 3, Msg: "a ply cannot end on the square it starts from"}
	}
	return pack(k, from, to), nil
}
