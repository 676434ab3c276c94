package banqi

import (
	"fmt"
	"strconv"

	"tabuleiro.dev/pkg/engine"
)

// The rules run on a board of 32 bytes in either representation: the true
// position's cell (face-down bit plus the piece) or the view's Cell (the
// face-down bit alone). Every rule of B3–B4 needs only "empty", "face down"
// or "revealed piece", so the same code serves both, and the view's legal
// plies are computable from the view alone.

const (
	faceDownBit = 0x10
	pieceMask   = 0x0f
)

type board[C ~uint8] = [NumSquares]C

// cellPiece returns the revealed piece on c, or NoPiece when c is empty or
// face down.
func cellPiece(c uint8) Piece {
	if c&faceDownBit != 0 {
		return NoPiece
	}
	return Piece(c & pieceMask)
}

// directions in the order of their targets: down a rank, left, right, up.
var directions = [4]struct{ df, dr int }{{0, -1}, {-1, 0}, {1, 0}, {0, 1}}

func neighbour(s Square, d int) Square {
	return SquareAt(s.File()+directions[d].df, s.Rank()+directions[d].dr)
}

// cannonTarget returns the square that a cannon on s could capture in
// direction d: the first piece beyond exactly one screen of any colour,
// face down or not (B4.2), if it is a revealed piece of colour enemy;
// NoSquare otherwise.
func cannonTarget[C ~uint8](b *board[C], s Square, d int, enemy Colour) Square {
	screens := 0
	for t := neighbour(s, d); t != NoSquare; t = neighbour(t, d) {
		if b[t] == 0 {
			continue
		}
		if screens == 0 {
			screens = 1
			continue
		}
		if p := cellPiece(uint8(b[t])); p != NoPiece && p.Colour() == enemy {
			return t
		}
		return NoSquare
	}
	return NoSquare
}

// genMoves appends the legal plies of colour mover to dst in canonical
// order: by origin square a1 … h4, then by destination square. mover is
// NoColour before the first reveal, when only reveals exist (B2).
func genMoves[C ~uint8](b *board[C], mover Colour, dst []Move) []Move {
	enemy := mover.Other()
	for s := Square(0); s < NumSquares; s++ {
		c := uint8(b[s])
		if c == 0 {
			continue
		}
		if c&faceDownBit != 0 {
			dst = append(dst, pack(KindReveal, s, s))
			continue
		}
		p := Piece(c)
		if p.Colour() != mover {
			continue
		}
		k := p.Kind()
		for d := range directions {
			n := neighbour(s, d)
			// A cannon's capture lies beyond its step in every direction, so
			// down and left (targets below s) emit the capture first.
			if k == Cannon && d < 2 {
				if t := cannonTarget(b, s, d, enemy); t != NoSquare {
					dst = append(dst, pack(KindCapture, s, t))
				}
			}
			if n != NoSquare {
				switch nc := uint8(b[n]); {
				case nc == 0:
					dst = append(dst, pack(KindStep, s, n))
				case k != Cannon && nc&faceDownBit == 0 && Piece(nc).Colour() == enemy && canCapture(k, Piece(nc).Kind()):
					dst = append(dst, pack(KindCapture, s, n))
				}
			}
			if k == Cannon && d >= 2 {
				if t := cannonTarget(b, s, d, enemy); t != NoSquare {
					dst = append(dst, pack(KindCapture, s, t))
				}
			}
		}
	}
	return dst
}

// hasLegal reports whether colour mover has a legal ply (B5.1).
func hasLegal[C ~uint8](b *board[C], mover Colour) bool {
	for s, c := range b {
		if uint8(c)&faceDownBit != 0 {
			return true // a reveal
		}
		if c == 0 || Piece(c).Colour() != mover {
			continue
		}
		for d := range directions {
			if n := neighbour(Square(s), d); n != NoSquare && b[n] == 0 {
				return true // a step
			}
		}
	}
	// Every piece of mover is hemmed in: only a capture is left.
	var buf [128]Move
	return len(genMoves(b, mover, buf[:0])) > 0
}

// checkMove returns nil if m is legal for colour mover on b, or the rule it
// breaks.
func checkMove[C ~uint8](b *board[C], mover Colour, m Move) *engine.RuleError {
	bad := func(rule, detail, msg string, kv ...string) *engine.RuleError {
		return engine.Refusal(m.String(), rule, detail, msg, kv...)
	}
	from, to := m.From(), m.To()
	fs, ts := from.String(), to.String()
	k := m.Kind()
	if k == NoMoveKind || m>>12 != 0 || (k == KindReveal) != (from == to) {
		return bad("B1", "not_a_banqi_ply", "not a Banqi ply")
	}
	fc := uint8(b[from])
	if k == KindReveal {
		switch {
		case fc == 0:
			return bad("B3", "reveal_empty", fs+" is empty: only a face-down piece can be revealed", "square", fs)
		case fc&faceDownBit == 0:
			return bad("B3", "already_revealed", fmt.Sprintf("%s is already revealed (%s): only a face-down piece can be revealed", from, Piece(fc).Name()),
				"square", fs, "colour", Piece(fc).Colour().String(), "piece", Piece(fc).Kind().String())
		}
		return nil
	}
	switch {
	case fc == 0:
		return bad("B3", "no_piece", "there is no piece on "+fs, "square", fs)
	case fc&faceDownBit != 0:
		return bad("B3", "move_face_down", "the piece on "+fs+" is face down: reveal it before moving it", "square", fs)
	case mover == NoColour:
		return bad("B2", "colours_not_fixed", "colours are not fixed yet: the first ply must be a reveal")
	case Piece(fc).Colour() != mover:
		return bad("B3", "not_your_piece", fmt.Sprintf("%s holds a %s, not one of %s's pieces", from, Piece(fc).Name(), mover),
			"square", fs, "colour", Piece(fc).Colour().String(), "piece", Piece(fc).Kind().String(), "mover", mover.String())
	}
	attacker := Piece(fc)
	tc := uint8(b[to])
	if k == KindStep {
		switch {
		case !adjacent(from, to):
			return bad("B3", "step_not_adjacent", fmt.Sprintf("a piece steps one square up, down, left or right; %s is not next to %s", to, from), "from", fs, "to", ts)
		case tc&faceDownBit != 0:
			return bad("B3", "step_onto_face_down", ts+" is face down: face-down pieces cannot be moved onto", "square", ts)
		case tc != 0:
			return bad("B3", "step_onto_piece", fmt.Sprintf("%s is occupied by a %s: a step needs an empty square (write a capture as %sx%s)", to, Piece(tc).Name(), from, to),
				"from", fs, "to", ts, "colour", Piece(tc).Colour().String(), "piece", Piece(tc).Kind().String())
		}
		return nil
	}
	switch {
	case tc == 0:
		return bad("B3", "capture_empty", fmt.Sprintf("%s is empty: there is nothing to capture (write a step as %s-%s)", to, from, to), "from", fs, "to", ts)
	case tc&faceDownBit != 0:
		return bad("B3", "capture_face_down", ts+" is face down: face-down pieces cannot be captured", "square", ts)
	case Piece(tc).Colour() == mover:
		return bad("B3", "capture_own", fmt.Sprintf("%s holds %s's own %s: only an enemy piece can be captured", to, mover, Piece(tc).Kind()),
			"square", ts, "mover", mover.String(), "piece", Piece(tc).Kind().String())
	}
	target := Piece(tc)
	if attacker.Kind() == Cannon {
		if from.File() != to.File() && from.Rank() != to.Rank() {
			return bad("B4.2", "cannon_not_in_line", fmt.Sprintf("a cannon captures along a rank or a file; %s and %s share neither", from, to), "from", fs, "to", ts)
		}
		if n := between(b, from, to); n != 1 {
			return bad("B4.2", "cannon_screens", fmt.Sprintf("a cannon captures by jumping exactly one piece, and there %s %d between %s and %s", isAre(n), n, from, to),
				"count", strconv.Itoa(n), "from", fs, "to", ts)
		}
		return nil
	}
	switch {
	case !adjacent(from, to):
		return bad("B3", "capture_not_adjacent", fmt.Sprintf("%s captures only on a square next to it; %s is not next to %s", withArticle(attacker.Kind()), to, from),
			"attacker", attacker.Kind().String(), "from", fs, "to", ts)
	case attacker.Kind() == General && target.Kind() == Soldier:
		return bad("B4.1", "general_soldier", "a general never captures a soldier")
	case !canCapture(attacker.Kind(), target.Kind()):
		return bad("B4.1", "outranked", fmt.Sprintf("%s cannot capture %s, which ranks higher", withArticle(attacker.Kind()), withArticle(target.Kind())),
			"attacker", attacker.Kind().String(), "target", target.Kind().String())
	}
	return nil
}

func withArticle(k Kind) string {
	if k == Advisor || k == Elephant {
		return "an " + k.String()
	}
	return "a " + k.String()
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

func adjacent(a, b Square) bool {
	df, dr := a.File()-b.File(), a.Rank()-b.Rank()
	return df*df+dr*dr == 1
}

// between counts the pieces, face down or not, strictly between two squares
// of one rank or file.
func between[C ~uint8](b *board[C], from, to Square) int {
	step := 1
	if from.Rank() != to.Rank() {
		step = 8
	}
	if to < from {
		step = -step
	}
	n := 0
	for s := from + Square(step); s != to; s += Square(step) {
		if b[s] != 0 {
			n++
		}
	}
	return n
}

// seatColour returns the colour of seat s given the first seat's colour
// (B2); NoColour before the first reveal.
func seatColour(first Colour, s engine.Seat) Colour {
	switch s {
	case engine.First:
		return first
	case engine.Second:
		return first.Other()
	}
	return NoColour
}

// decide returns the outcome with seat mover to move (B5). A loss by B5.1
// takes precedence over the draw by B5.2 when both hold after the same
// ply: the side to move has nothing to play, and B5.1 says it loses on its
// turn. piecesLeft counts mover's pieces, face down ones included.
func decide[C ~uint8](b *board[C], mover engine.Seat, first Colour, piecesLeft int, quiet int) engine.Outcome {
	c := seatColour(first, mover)
	switch {
	case first != NoColour && piecesLeft == 0:
		return engine.WinFor(mover.Other(), engine.ReasonNoPieces)
	case !hasLegal(b, c):
		return engine.WinFor(mover.Other(), engine.ReasonNoLegalMove)
	case quiet >= PlyLimit:
		return engine.DrawBy(engine.ReasonPlyLimit)
	}
	return engine.Outcome{}
}

// seatName returns "first"/"second" before the first reveal, then the
// seat's colour (B2).
func seatName(first Colour, s engine.Seat) string {
	if c := seatColour(first, s); c != NoColour {
		return c.String()
	}
	return s.String()
}
