package banqi

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"tabuleiro.dev/pkg/engine"
)

// Cell is a square as a view sees it: Empty, FaceDown, or a revealed
// piece (Cell(p) for a Piece p). FaceDown carries no identity, and no Cell
// value means "face down and it is a chariot": a View built of Cells cannot
// hold what B6 hides.
type Cell uint8

// The cells that are not a revealed piece.
const (
	Empty    Cell = 0
	FaceDown Cell = faceDownBit
)

// Piece returns the revealed piece on the cell, or NoPiece for Empty and
// FaceDown.
func (c Cell) Piece() Piece { return cellPiece(uint8(c)) }

// String returns ".", "?" or the revealed piece's letter.
func (c Cell) String() string {
	switch c {
	case Empty:
		return "."
	case FaceDown:
		return "?"
	}
	return c.Piece().String()
}

// View is what every seat and spectator sees of a Banqi game (B6): the
// revealed pieces, the face-down squares, the captured pieces, the counts of
// face-down pieces by type, the side to move, the seats' colours once
// fixed, the quiet-ply counter, the ply count and the last ply. It is an
// immutable value; == compares views. It implements engine.View, and its
// legal plies and outcome are computed from it alone.
type View struct {
	cells   board[Cell]
	down    [numPieces]int8 // face-down pieces by type: aggregate, public (B6)
	mover   engine.Seat
	first   Colour
	quiet   int16
	plies   int32
	last    Move
	outcome engine.Outcome
}

var _ engine.View = View{}

// Variant returns the standard rule set.
func (v View) Variant() engine.Variant { return variant }

// ToMove returns the seat to move; engine.NoSeat once the game is over.
func (v View) ToMove() engine.Seat {
	if v.outcome.Over() {
		return engine.NoSeat
	}
	return v.mover
}

// Plies returns the number of plies played.
func (v View) Plies() int { return int(v.plies) }

// Quiet returns the plies in a row without a capture or a reveal (B5.2).
func (v View) Quiet() int { return int(v.quiet) }

// LastMove returns the last ply, or NoMove at the start.
func (v View) LastMove() Move { return v.last }

// LastRevealed returns the piece that the last ply revealed, or NoPiece if
// it was not a reveal.
func (v View) LastRevealed() Piece {
	if v.last.Kind() != KindReveal {
		return NoPiece
	}
	return v.cells[v.last.From()].Piece()
}

// Cell returns what sq shows; Empty for an invalid square.
func (v View) Cell(sq Square) Cell {
	if !sq.Valid() {
		return Empty
	}
	return v.cells[sq]
}

// FaceDownCount returns how many pieces p are still face down.
func (v View) FaceDownCount(p Piece) int {
	if !p.Valid() {
		return 0
	}
	return int(v.down[p])
}

// CapturedCount returns how many pieces p have been captured.
func (v View) CapturedCount(p Piece) int {
	if !p.Valid() {
		return 0
	}
	return int(v.captured()[p])
}

// CapturedCount returns how many pieces p have been captured.
func (p Position) CapturedCount(pc Piece) int {
	if !pc.Valid() {
		return 0
	}
	return int(p.captured()[pc])
}

func (v View) captured() [numPieces]int8 {
	var n [numPieces]int8
	for _, p := range allPieces {
		n[p] = standardCount(p) - v.down[p]
	}
	for _, c := range v.cells {
		if p := c.Piece(); p != NoPiece {
			n[p]--
		}
	}
	return n
}

// Colour returns the colour of seat s, or NoColour before the first reveal
// (B2).
func (v View) Colour(s engine.Seat) Colour { return seatColour(v.first, s) }

// SeatName returns "first"/"second" before the first reveal, then "red" or
// "black" (B2).
func (v View) SeatName(s engine.Seat) string { return seatName(v.first, s) }

// Outcome returns how the game stands. Everything B5 needs is public, so
// the view decides it exactly as the true position does.
func (v View) Outcome() engine.Outcome { return v.outcome }

// LegalMoves appends the legal plies of the side to move (reveals of every
// face-down square, steps and captures of its revealed pieces) to dst in
// canonical order; none once the game is over.
func (v View) LegalMoves(dst []Move) []Move {
	if v.outcome.Over() {
		return dst
	}
	return genMoves(&v.cells, seatColour(v.first, v.mover), dst)
}

// Legal returns the legal plies as engine.Ply values.
func (v View) Legal() []engine.Ply { return toPlies(v.LegalMoves(nil)) }

// ParsePly parses a ply in B1 notation (see ParseMove).
func (v View) ParsePly(s string) (engine.Ply, error) { return parsePly(s) }

func (v View) piecesLeft(c Colour) int {
	n := 0
	for _, x := range v.cells {
		if p := x.Piece(); p != NoPiece && p.Colour() == c {
			n++
		}
	}
	for k := General; k <= Soldier; k++ {
		n += int(v.down[MakePiece(c, k)])
	}
	return n
}

func (v View) faceDownTotal() int {
	n := 0
	for _, c := range v.down {
		n += int(c)
	}
	return n
}

// Chance is one possible identity of a face-down square: the piece, and its
// probability as Count out of Total face-down pieces (P = Count/Total).
type Chance struct {
	Piece Piece
	Count int
	Total int
	P     float64
}

// Identities returns the possible identities of face-down square sq with
// their probabilities, uniform over the pieces still face down (B6), in
// piece order (red K … P, black k … p); nil if sq is not face down.
func (v View) Identities(sq Square) []Chance {
	if v.Cell(sq) != FaceDown {
		return nil
	}
	total := v.faceDownTotal()
	var out []Chance
	for _, p := range allPieces {
		if n := int(v.down[p]); n > 0 {
			out = append(out, Chance{Piece: p, Count: n, Total: total, P: float64(n) / float64(total)})
		}
	}
	return out
}

// Sample returns a determinization: a true position consistent with the
// view, its face-down squares filled with a uniformly random permutation
// of the face-down pieces drawn from r, which must not be nil.
func (v View) Sample(r *rand.Rand) Position {
	var pool [NumSquares]Piece
	n := 0
	for _, p := range allPieces {
		for range v.down[p] {
			pool[n] = p
			n++
		}
	}
	r.Shuffle(n, func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	p := Position{mover: v.mover, first: v.first, quiet: v.quiet, plies: v.plies, last: v.last, outcome: v.outcome}
	i := 0
	for s, c := range v.cells {
		if c == FaceDown {
			p.cells[s] = cell(pool[i]) | faceDownBit
			i++
		} else {
			p.cells[s] = cell(c)
		}
	}
	return p
}

// Reveal returns the view after the side to move reveals sq and it turns
// out to be p: the chance branch of an expectimax search. sq must be face
// down and p one of the pieces still face down.
func (v View) Reveal(sq Square, p Piece) (View, error) {
	m := RevealMove(sq)
	if v.outcome.Over() {
		return View{}, fmt.Errorf("reveal %s: %w (%s)", sq, engine.ErrGameOver, v.outcome)
	}
	if err := checkMove(&v.cells, seatColour(v.first, v.mover), m); err != nil {
		return View{}, err
	}
	if !p.Valid() || v.down[p] == 0 {
		return View{}, engine.Refusal(m.String(), "B6", "none_face_down", fmt.Sprintf("no %s is face down", p.Name()), "colour", p.Colour().String(), "piece", p.Kind().String())
	}
	v.cells[sq] = Cell(p)
	v.down[p]--
	if v.first == NoColour {
		v.first = seatColourFor(v.mover, p.Colour())
	}
	v.quiet = 0
	return v.advance(m), nil
}

// PlayMove returns the view after a step or a capture by the side to move.
// A reveal's result is not in the view: use Reveal with each identity.
func (v View) PlayMove(m Move) (View, error) {
	if v.outcome.Over() {
		return View{}, fmt.Errorf("play %s: %w (%s)", m, engine.ErrGameOver, v.outcome)
	}
	if err := checkMove(&v.cells, seatColour(v.first, v.mover), m); err != nil {
		return View{}, err
	}
	from, to := m.From(), m.To()
	switch m.Kind() {
	case KindReveal:
		return View{}, engine.Refusal(m.String(), "B6", "reveal_in_view", "the piece a reveal shows is not in the view: use View.Reveal with each identity")
	case KindStep:
		v.quiet++
	default:
		v.quiet = 0
	}
	v.cells[to], v.cells[from] = v.cells[from], Empty
	return v.advance(m), nil
}

func (v View) advance(m Move) View {
	v.plies++
	v.last = m
	v.mover = v.mover.Other()
	// Only a capture takes a piece away: after a step or a reveal the side
	// now to move has as many pieces as before, at least one (Validate:
	// the side that did not move last has pieces), so they are counted only
	// after a capture.
	left := 1
	if m.Kind() == KindCapture {
		left = v.piecesLeft(seatColour(v.first, v.mover))
	}
	v.outcome = decide(&v.cells, v.mover, v.first, left, int(v.quiet))
	return v
}

// Encode returns the view as seven fields separated by one space: the
// board (32 squares a1 … h4: "." empty, "?" face down, a letter for a
// revealed piece), then mover, colour, quiet, plies and last as in
// Position.Encode, then the captured pieces as letters in piece order
// (red K … P, black k … p) or "-". The face-down counts follow from the
// board and the captured pieces. DecodeView is its exact inverse.
func (v View) Encode() string {
	var b strings.Builder
	for _, c := range v.cells {
		b.WriteString(c.String())
	}
	writeTail(&b, v.mover, v.first, v.quiet, v.plies, v.last)
	b.WriteByte(' ')
	captured := v.captured()
	n := 0
	for _, p := range allPieces {
		for range captured[p] {
			b.WriteByte(p.Letter())
			n++
		}
	}
	if n == 0 {
		b.WriteByte('-')
	}
	return b.String()
}

// DecodeView parses View.Encode's output and checks it as Decode does.
// Errors wrap engine.ErrBadSetup.
func DecodeView(s string) (engine.View, error) {
	v, err := DecodeConcreteView(s)
	if err != nil {
		return nil, err
	}
	return v, nil
}

// DecodeConcreteView is DecodeView returning the concrete View.
func DecodeConcreteView(s string) (View, error) {
	f := strings.Split(s, " ")
	if len(f) != 7 {
		return View{}, badEncoding(s, "want 7 fields separated by single spaces, got %d", len(f))
	}
	if len(f[0]) != NumSquares {
		return View{}, badEncoding(s, "the board has %d characters, want 32", len(f[0]))
	}
	var v View
	var seen [numPieces]int8
	faceDown := 0
	for i := range NumSquares {
		switch ch := f[0][i]; ch {
		case '.':
		case '?':
			v.cells[i] = FaceDown
			faceDown++
		default:
			p, ok := PieceFromLetter(ch)
			if !ok {
				return View{}, badEncoding(s, "unknown letter %q at %s", ch, Square(i))
			}
			v.cells[i] = Cell(p)
			seen[p]++
		}
	}
	var err error
	if v.mover, v.first, v.quiet, v.plies, v.last, err = parseTail(f[1:6]); err != nil {
		return View{}, badEncoding(s, "%v", err)
	}
	captured := 0
	if f[6] != "-" {
		prev := -1
		for i := range len(f[6]) {
			p, ok := PieceFromLetter(f[6][i])
			if !ok {
				return View{}, badEncoding(s, "unknown captured letter %q", f[6][i])
			}
			idx := pieceIndex(p)
			if idx < prev {
				return View{}, badEncoding(s, "captured pieces must be listed in order K A B R N C P k a b r n c p")
			}
			prev = idx
			seen[p]++
			captured++
		}
	}
	for _, p := range allPieces {
		if seen[p] > standardCount(p) {
			return View{}, badEncoding(s, "%d %s revealed or captured, at most %d (B1)", seen[p], plural(p.Name(), seen[p]), standardCount(p))
		}
		v.down[p] = standardCount(p) - seen[p]
	}
	if v.faceDownTotal() != faceDown {
		return View{}, badEncoding(s, "%d face-down squares, but %d pieces are neither revealed nor captured", faceDown, v.faceDownTotal())
	}
	if err := validateCommon(&v.cells, v.mover, v.first, v.quiet, v.plies, v.last, captured, faceDown, v.piecesLeft(v.first), v.piecesLeft(v.first.Other())); err != nil {
		return View{}, badEncoding(s, "%v", err)
	}
	v.outcome = decide(&v.cells, v.mover, v.first, v.piecesLeft(seatColour(v.first, v.mover)), int(v.quiet))
	return v, nil
}

func pieceIndex(p Piece) int {
	for i, q := range allPieces {
		if q == p {
			return i
		}
	}
	return -1
}

// Render draws the view, face-down squares as "?", rank 4 at the top, then
// the side to move, colours, captured and face-down pieces, the quiet-ply
// counter and the outcome.
func (v View) Render() string {
	var b strings.Builder
	b.WriteString("view (face-down pieces as ?)\n")
	renderBoard(&b, func(s Square) string { return " " + v.cells[s].String() + " " })
	renderFacts(&b, v.mover, v.first, v.quiet, v.plies, v.last, v.LastRevealed(), v.captured(), v.down, v.outcome)
	return b.String()
}
