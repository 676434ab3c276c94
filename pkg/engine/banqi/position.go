package banqi

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"tabuleiro.dev/pkg/engine"
)

// cell is a square of the true position: 0 empty, else the piece, with
// faceDownBit set while it is face down.
type cell uint8

// Position is the whole truth of a Banqi game, face-down identities
// included (B6: it never leaves the match service). It is an immutable
// value of fixed-size fields: copies are independent and == compares
// positions. The zero Position is not a game; build one with New,
// Layout.Position or Decode.
type Position struct {
	cells   board[cell]
	mover   engine.Seat // the seat whose turn it is, kept after the end
	first   Colour      // the first seat's colour; NoColour before the first reveal (B2)
	quiet   int16       // plies in a row without a capture or a reveal (B5.2)
	plies   int32
	last    Move
	outcome engine.Outcome
}

var _ engine.Position = Position{}

// Variant returns the standard rule set.
func (p Position) Variant() engine.Variant { return variant }

// ToMove returns the seat to move; engine.NoSeat once the game is over.
func (p Position) ToMove() engine.Seat {
	if p.outcome.Over() {
		return engine.NoSeat
	}
	return p.mover
}

// Plies returns the number of plies played.
func (p Position) Plies() int { return int(p.plies) }

// Quiet returns the number of plies in a row without a capture or a reveal
// (B5.2); the game is drawn when it reaches PlyLimit.
func (p Position) Quiet() int { return int(p.quiet) }

// LastMove returns the last ply played, or NoMove at the start.
func (p Position) LastMove() Move { return p.last }

// LastRevealed returns the piece that the last ply revealed, or NoPiece if
// the last ply was not a reveal.
func (p Position) LastRevealed() Piece {
	if p.last.Kind() != KindReveal {
		return NoPiece
	}
	return p.PieceAt(p.last.From())
}

// PieceAt returns the piece on sq, face down or not; NoPiece for an empty
// or invalid square. Only the match service may use it for a face-down
// square (B6).
func (p Position) PieceAt(sq Square) Piece {
	if !sq.Valid() {
		return NoPiece
	}
	return Piece(p.cells[sq] & pieceMask)
}

// FaceDown reports whether sq holds a face-down piece.
func (p Position) FaceDown(sq Square) bool {
	return sq.Valid() && p.cells[sq]&faceDownBit != 0
}

// Colour returns the colour of seat s, or NoColour before the first reveal
// fixes colours (B2).
func (p Position) Colour(s engine.Seat) Colour { return seatColour(p.first, s) }

// SeatName returns "first" or "second" before the first reveal, then the
// seat's colour, "red" or "black" (B2); "none" for engine.NoSeat.
func (p Position) SeatName(s engine.Seat) string { return seatName(p.first, s) }

// Outcome returns how the game stands (B5).
func (p Position) Outcome() engine.Outcome { return p.outcome }

// captured returns how many of each piece have been captured, indexed by
// Piece.
func (p Position) captured() [numPieces]int8 {
	var n [numPieces]int8
	for _, p := range allPieces {
		n[p] = standardCount(p)
	}
	for _, c := range p.cells {
		if c != 0 {
			n[c&pieceMask]--
		}
	}
	return n
}

// LegalMoves appends the legal plies of the side to move to dst, in
// canonical order (by origin square a1 … h4, then destination), and returns
// it; none once the game is over.
func (p Position) LegalMoves(dst []Move) []Move {
	if p.outcome.Over() {
		return dst
	}
	return genMoves(&p.cells, seatColour(p.first, p.mover), dst)
}

// Legal returns the legal plies as engine.Ply values (each a Move).
func (p Position) Legal() []engine.Ply { return toPlies(p.LegalMoves(nil)) }

func toPlies(ms []Move) []engine.Ply {
	out := make([]engine.Ply, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

// ParsePly parses a ply in B1 notation (see ParseMove).
func (p Position) ParsePly(s string) (engine.Ply, error) {
	ply, err := parsePly(s)
	return ply, engine.InGame(err, engine.Banqi)
}

func parsePly(s string) (engine.Ply, error) {
	m, err := ParseMove(s)
	if err != nil {
		return nil, err
	}
	return m, nil
}

// Play applies a ply, which must be a Move. See PlayMove.
func (p Position) Play(ply engine.Ply) (engine.Position, error) {
	m, ok := ply.(Move)
	if !ok {
		return nil, engine.Refusal(plyString(ply), "B1", "foreign_ply", fmt.Sprintf("not a Banqi ply (%T)", ply), "type", fmt.Sprintf("%T", ply))
	}
	q, err := p.PlayMove(m)
	if err != nil {
		return nil, err
	}
	return q, nil
}

func plyString(ply engine.Ply) string {
	if ply == nil {
		return "<nil>"
	}
	return ply.String()
}

// PlayMove applies m for the side to move and returns the new position.
// An illegal ply returns a *engine.RuleError naming the rule (B2–B4.2);
// a ply after the end wraps engine.ErrGameOver.
func (p Position) PlayMove(m Move) (Position, error) {
	if p.outcome.Over() {
		return Position{}, fmt.Errorf("play %s: %w (%s)", m, engine.ErrGameOver, p.outcome)
	}
	if err := checkMove(&p.cells, seatColour(p.first, p.mover), m); err != nil {
		return Position{}, err
	}
	return p.apply(m), nil
}

// apply plays a legal m without checking it.
func (p Position) apply(m Move) Position {
	from, to := m.From(), m.To()
	switch m.Kind() {
	case KindReveal:
		p.cells[from] &^= faceDownBit
		if p.first == NoColour {
			// B2: the first piece revealed gives its colour to the first seat.
			p.first = seatColourFor(p.mover, Piece(p.cells[from]).Colour())
		}
		p.quiet = 0
	case KindStep:
		p.cells[to], p.cells[from] = p.cells[from], 0
		p.quiet++
	case KindCapture:
		p.cells[to], p.cells[from] = p.cells[from], 0
		p.quiet = 0
	}
	p.plies++
	p.last = m
	p.mover = p.mover.Other()
	left := 1 // as in View.advance: only a capture takes a piece away
	if m.Kind() == KindCapture {
		left = p.piecesLeft(seatColour(p.first, p.mover))
	}
	p.outcome = decide(&p.cells, p.mover, p.first, left, int(p.quiet))
	return p
}

// seatColourFor returns the first seat's colour given that seat s has
// colour c.
func seatColourFor(s engine.Seat, c Colour) Colour {
	if s == engine.Second {
		return c.Other()
	}
	return c
}

// piecesLeft counts colour c's pieces on the board, face down included.
func (p Position) piecesLeft(c Colour) int {
	n := 0
	for _, x := range p.cells {
		if x != 0 && Piece(x&pieceMask).Colour() == c {
			n++
		}
	}
	return n
}

// Perft counts the ply sequences of the given depth from p (reveals are
// deterministic in the true position). Ended games have no plies.
func (p Position) Perft(depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	var buf [128]Move
	ms := p.LegalMoves(buf[:0])
	if depth == 1 {
		return uint64(len(ms))
	}
	var n uint64
	for _, m := range ms {
		n += p.apply(m).Perft(depth - 1)
	}
	return n
}

// View returns what seat s sees; every seat and spectator (engine.NoSeat)
// sees the same (B6).
func (p Position) View(s engine.Seat) engine.View { return p.PublicView() }

// PublicView returns the view of every seat and spectator as a concrete
// View. This is the one place where the true position turns into what may
// be seen: each face-down cell becomes FaceDown and its identity goes only
// into the aggregate counts (B6).
func (p Position) PublicView() View {
	v := View{mover: p.mover, first: p.first, quiet: p.quiet, plies: p.plies, last: p.last, outcome: p.outcome}
	for i, c := range p.cells {
		if c&faceDownBit != 0 {
			v.cells[i] = FaceDown
			v.down[c&pieceMask]++
		} else {
			v.cells[i] = Cell(c)
		}
	}
	return v
}

// Encode returns the position as six fields separated by one space:
//
//	board  32 squares a1, b1 … h4: "." empty, a letter for a revealed piece,
//	       "?" and the letter for a face-down piece
//	mover  "first" or "second", the seat whose turn it is
//	colour the first seat's colour, "red" or "black"; "-" before the first reveal
//	quiet  plies in a row without a capture or a reveal (B5.2)
//	plies  plies played
//	last   the last ply, or "-"
//
// Decode is its exact inverse. The encoding holds face-down identities: it
// is for the match service's store, never for a client (B6).
func (p Position) Encode() string {
	var b strings.Builder
	for _, c := range p.cells {
		if c&faceDownBit != 0 {
			b.WriteByte('?')
		}
		b.WriteByte(Piece(c & pieceMask).Letter())
	}
	writeTail(&b, p.mover, p.first, p.quiet, p.plies, p.last)
	return b.String()
}

func writeTail(b *strings.Builder, mover engine.Seat, first Colour, quiet int16, plies int32, last Move) {
	b.WriteByte(' ')
	b.WriteString(mover.String())
	b.WriteByte(' ')
	if first == NoColour {
		b.WriteByte('-')
	} else {
		b.WriteString(first.String())
	}
	fmt.Fprintf(b, " %d %d %s", quiet, plies, last)
}

// Decode parses Position.Encode's output and checks that it describes a
// position that play can reach as far as the fields show (piece counts, the
// side to move, the last ply, the counters). Errors wrap
// engine.ErrBadSetup.
func Decode(s string) (engine.Position, error) {
	p, err := DecodePosition(s)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// DecodePosition is Decode returning the concrete Position.
func DecodePosition(s string) (Position, error) {
	f := strings.Split(s, " ")
	if len(f) != 6 {
		return Position{}, badEncoding(s, "want 6 fields separated by single spaces, got %d", len(f))
	}
	var p Position
	i, sq := 0, 0
	for i < len(f[0]) && sq < NumSquares {
		c := cell(0)
		if f[0][i] == '?' {
			c = faceDownBit
			i++
			if i == len(f[0]) {
				break
			}
		}
		if f[0][i] != '.' {
			pc, ok := PieceFromLetter(f[0][i])
			if !ok {
				return Position{}, badEncoding(s, "unknown letter %q at %s", f[0][i], Square(sq))
			}
			c |= cell(pc)
		} else if c != 0 {
			return Position{}, badEncoding(s, "'?' must be followed by a piece letter at %s", Square(sq))
		}
		p.cells[sq] = c
		i++
		sq++
	}
	if sq != NumSquares || i != len(f[0]) {
		return Position{}, badEncoding(s, "the board must describe exactly 32 squares")
	}
	var err error
	if p.mover, p.first, p.quiet, p.plies, p.last, err = parseTail(f[1:]); err != nil {
		return Position{}, badEncoding(s, "%v", err)
	}
	if err := p.validate(); err != nil {
		return Position{}, badEncoding(s, "%v", err)
	}
	p.outcome = decide(&p.cells, p.mover, p.first, p.piecesLeft(seatColour(p.first, p.mover)), int(p.quiet))
	return p, nil
}

func badEncoding(s, format string, args ...any) error {
	return fmt.Errorf("%w: banqi encoding %q: %s", engine.ErrBadSetup, s, fmt.Sprintf(format, args...))
}

func parseTail(f []string) (mover engine.Seat, first Colour, quiet int16, plies int32, last Move, err error) {
	switch f[0] {
	case "first":
		mover = engine.First
	case "second":
		mover = engine.Second
	default:
		return 0, 0, 0, 0, 0, fmt.Errorf("side to move %q: want first or second", f[0])
	}
	switch f[1] {
	case "-":
	case "red":
		first = Red
	case "black":
		first = Black
	default:
		return 0, 0, 0, 0, 0, fmt.Errorf("colour %q: want red, black or -", f[1])
	}
	q, err := parseCount(f[2], PlyLimit)
	if err != nil {
		return 0, 0, 0, 0, 0, fmt.Errorf("quiet plies: %w", err)
	}
	n, err := parseCount(f[3], 1<<24)
	if err != nil {
		return 0, 0, 0, 0, 0, fmt.Errorf("plies: %w", err)
	}
	if f[4] != "-" {
		if last, err = ParseMove(f[4]); err != nil {
			return 0, 0, 0, 0, 0, fmt.Errorf("last ply: %w", err)
		}
	}
	return mover, first, int16(q), int32(n), last, nil
}

// parseCount parses a canonical decimal 0…max (no sign, no leading zero).
func parseCount(s string, max int) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > max || strconv.Itoa(n) != s {
		return 0, fmt.Errorf("%q is not a number 0–%d", s, max)
	}
	return n, nil
}

// Validate checks that p could arise in play as far as its fields show; a
// position built by New and PlayMove always passes.
func (p Position) Validate() error {
	if err := p.validate(); err != nil {
		return err
	}
	if want := decide(&p.cells, p.mover, p.first, p.piecesLeft(seatColour(p.first, p.mover)), int(p.quiet)); p.outcome != want {
		return fmt.Errorf("outcome %s, want %s", p.outcome, want)
	}
	return nil
}

func (p Position) validate() error {
	var n [numPieces]int8
	var revealed [numPieces]int8
	faceDown := 0
	for _, c := range p.cells {
		if c == 0 {
			continue
		}
		pc := Piece(c & pieceMask)
		if !pc.Valid() || c&^(faceDownBit|pieceMask) != 0 {
			return errors.New("invalid square")
		}
		n[pc]++
		if c&faceDownBit != 0 {
			faceDown++
		} else {
			revealed[pc]++
		}
	}
	for _, pc := range allPieces {
		if n[pc] > standardCount(pc) {
			return fmt.Errorf("%d %s (%c) on the board, at most %d (B1)", n[pc], plural(pc.Name(), n[pc]), pc.Letter(), standardCount(pc))
		}
	}
	captured := 0
	for _, pc := range allPieces {
		captured += int(standardCount(pc) - n[pc])
	}
	return validateCommon(&p.cells, p.mover, p.first, p.quiet, p.plies, p.last, captured, faceDown, p.piecesLeft(p.first), p.piecesLeft(p.first.Other()))
}

// validateCommon checks what the position and the view share: the side to
// move, colours, counters and the last ply against the board.
func validateCommon[C ~uint8](b *board[C], mover engine.Seat, first Colour, quiet int16, plies int32, last Move, captured, faceDown, firstLeft, secondLeft int) error {
	if mover != engine.First && mover != engine.Second {
		return errors.New("no side to move")
	}
	if want := engine.Seat(1 + plies%2); mover != want {
		return fmt.Errorf("after %d plies %s is to move, not %s", plies, want, mover)
	}
	if quiet < 0 || int(quiet) > int(plies) || quiet > PlyLimit {
		return fmt.Errorf("%d quiet plies after %d plies", quiet, plies)
	}
	if plies == 0 {
		if first != NoColour || last != NoMove || faceDown != NumSquares || captured != 0 {
			return errors.New("before the first ply every piece is face down, colours are not fixed and there is no last ply (B1, B2)")
		}
		return nil
	}
	if first == NoColour {
		return errors.New("after the first ply colours are fixed (B2)")
	}
	if last == NoMove {
		return errors.New("after the first ply there is a last ply")
	}
	if plies < int32(NumSquares-faceDown+captured) {
		return fmt.Errorf("%d plies cannot reveal %d pieces and capture %d", plies, NumSquares-faceDown, captured)
	}
	prev := mover.Other()
	pc := seatColour(first, prev)
	left := firstLeft
	if prev == engine.Second {
		left = secondLeft
	}
	if left == 0 {
		return fmt.Errorf("%s has no pieces left and could not have played the last ply (B5.1)", prev)
	}
	from, to := last.From(), last.To()
	switch last.Kind() {
	case KindReveal:
		if cellPiece(uint8(b[from])) == NoPiece {
			return fmt.Errorf("the last ply revealed %s, which holds no revealed piece", from)
		}
		if plies == 1 && cellPiece(uint8(b[from])).Colour() != first {
			return fmt.Errorf("the first piece revealed gives its colour to the first seat (B2)")
		}
		if quiet != 0 {
			return errors.New("a reveal resets the quiet plies (B5.2)")
		}
	case KindStep, KindCapture:
		if !adjacent(from, to) && !(last.Kind() == KindCapture && cellPiece(uint8(b[to])).Kind() == Cannon) {
			return fmt.Errorf("the last ply %s is not a possible ply", last)
		}
		if b[from] != 0 || cellPiece(uint8(b[to])).Colour() != pc {
			return fmt.Errorf("the last ply %s must leave %s empty and a revealed %s piece on %s", last, from, pc, to)
		}
		if last.Kind() == KindCapture && (quiet != 0 || captured == 0) {
			return errors.New("a capture resets the quiet plies (B5.2) and leaves a captured piece")
		}
		if last.Kind() == KindStep && quiet == 0 {
			return errors.New("a step does not reset the quiet plies (B5.2)")
		}
	}
	return nil
}

// Render draws the true position, face-down pieces included in brackets,
// rank 4 at the top, then the side to move, colours, captured pieces, the
// quiet-ply counter and the outcome.
func (p Position) Render() string {
	var b strings.Builder
	b.WriteString("true position (face-down pieces in brackets)\n")
	renderBoard(&b, func(s Square) string {
		c := p.cells[s]
		switch {
		case c == 0:
			return " . "
		case c&faceDownBit != 0:
			return "[" + Piece(c&pieceMask).String() + "]"
		}
		return " " + Piece(c).String() + " "
	})
	var down [numPieces]int8
	for _, c := range p.cells {
		if c&faceDownBit != 0 {
			down[c&pieceMask]++
		}
	}
	renderFacts(&b, p.mover, p.first, p.quiet, p.plies, p.last, p.LastRevealed(), p.captured(), down, p.outcome)
	return b.String()
}

func renderBoard(b *strings.Builder, sq func(Square) string) {
	b.WriteString("   a  b  c  d  e  f  g  h\n")
	for r := 3; r >= 0; r-- {
		fmt.Fprintf(b, "%d ", r+1)
		for f := range 8 {
			b.WriteString(sq(SquareAt(f, r)))
		}
		fmt.Fprintf(b, " %d\n", r+1)
	}
	b.WriteString("   a  b  c  d  e  f  g  h\n")
}

func renderFacts(b *strings.Builder, mover engine.Seat, first Colour, quiet int16, plies int32, last Move, revealed Piece, captured, down [numPieces]int8, outcome engine.Outcome) {
	if outcome.Over() {
		b.WriteString("to move: nobody, the game is over\n")
	} else {
		fmt.Fprintf(b, "to move: %s\n", seatLabel(first, mover))
	}
	if first == NoColour {
		b.WriteString("colours: not fixed; the first reveal gives its colour to the first seat (B2)\n")
	} else {
		fmt.Fprintf(b, "colours: first is %s, second is %s\n", first, first.Other())
	}
	fmt.Fprintf(b, "captured: %s\n", pieceList(captured))
	fmt.Fprintf(b, "face down: %s\n", pieceList(down))
	fmt.Fprintf(b, "plies: %d, last: %s", plies, last)
	if revealed != NoPiece {
		fmt.Fprintf(b, " revealed a %s", revealed.Name())
	}
	fmt.Fprintf(b, "\nquiet plies: %d of %d (B5.2)\n", quiet, PlyLimit)
	switch outcome.Result {
	case engine.Win:
		fmt.Fprintf(b, "outcome: %s wins (%s)\n", seatLabel(first, outcome.Winner), outcome.Reason)
	case engine.Draw:
		fmt.Fprintf(b, "outcome: draw (%s)\n", outcome.Reason)
	default:
		b.WriteString("outcome: ongoing\n")
	}
}

func seatLabel(first Colour, s engine.Seat) string {
	if c := seatColour(first, s); c != NoColour {
		return fmt.Sprintf("%s (%s)", c, s)
	}
	return s.String()
}

// pieceList writes counts by piece as "red K A A, black p p p" ("none" if
// empty).
func pieceList(n [numPieces]int8) string {
	var parts []string
	for _, c := range []Colour{Red, Black} {
		var ls []string
		for k := General; k <= Soldier; k++ {
			pc := MakePiece(c, k)
			for range n[pc] {
				ls = append(ls, pc.String())
			}
		}
		if len(ls) > 0 {
			parts = append(parts, c.String()+" "+strings.Join(ls, " "))
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}
