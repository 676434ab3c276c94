package corners

import (
	"fmt"
	"strconv"
	"strings"

	"tabuleiro.dev/pkg/engine"
)

// Position is a Corners game in progress: a Board, the last ply and the
// hashes of the positions since the start (for C6.4). It implements
// engine.Position and engine.View (Corners has no hidden information, so a
// view is the position itself). Values are immutable: Play builds a new
// history slice and never appends to a shared one.
type Position struct {
	b    Board
	last Move
	// hist holds the hash of every position since the start (or since
	// Decode), the current one last. Never appended in place.
	hist []uint64
}

var (
	_ engine.Position = Position{}
	_ engine.Ply      = Move{}
)

// New returns the start position of a variant (C1, C2). Corners takes no
// setup: setup must be "".
func New(variant, setup string) (engine.Position, error) {
	vi, ok := lookup(variant)
	if !ok {
		return nil, fmt.Errorf("corners variant %q: %w", variant, engine.ErrUnknownVariant)
	}
	if setup != "" {
		return nil, fmt.Errorf("corners variant %q takes no setup, got %q: %w", variant, setup, engine.ErrBadSetup)
	}
	return NewPosition(newBoard(vi)), nil
}

// NewPosition returns a position at b with a fresh repetition history.
func NewPosition(b Board) Position {
	return Position{b: b, hist: []uint64{b.hash}}
}

// Board returns the position's board, for fast generation.
func (p Position) Board() Board { return p.b }

// Variant returns the rule set.
func (p Position) Variant() engine.Variant { return p.b.Variant() }

// ToMove returns the seat to move; NoSeat when the game is over.
func (p Position) ToMove() engine.Seat { return p.b.ToMove() }

// Plies returns the number of plies played.
func (p Position) Plies() int { return p.b.Plies() }

// MoveNumber returns the number of the move of the next ply (of the last
// ply once the game is over; in training, the number of moves taken).
func (p Position) MoveNumber() int { return p.b.MoveNumber() }

// Deadline returns the leave-home deadline's move number (C5.1), 0 for none.
func (p Position) Deadline() int { return p.b.Deadline() }

// MoveLimit returns the variant's last move (C6.3).
func (p Position) MoveLimit() int { return p.b.MoveLimit() }

// Diagonal reports whether the variant moves diagonally too (C2).
func (p Position) Diagonal() bool { return p.b.Diagonal() }

// BlockingAllowed reports whether the variant allows blocking (C2, C6.1).
func (p Position) BlockingAllowed() bool { return p.b.BlockingAllowed() }

// Pieces returns the squares of seat s's pieces in increasing order.
func (p Position) Pieces(s engine.Seat) []Square { return p.b.Pieces(s) }

// Home returns the squares of seat s's home in increasing order.
func (p Position) Home(s engine.Seat) []Square { return p.b.Home(s) }

// LastPly returns the last ply played, in full; false at the start (and
// after Decode of a start position).
func (p Position) LastPly() (Move, bool) { return p.last, p.last.n != 0 }

// Destinations returns the legal plies of the piece on from (C3).
func (p Position) Destinations(from Square) []Move { return p.b.Destinations(from) }

// Outcome returns how the game stands.
func (p Position) Outcome() engine.Outcome { return p.b.outcome }

// Legal returns the legal plies (Move values) in LegalMoves' order.
func (p Position) Legal() []engine.Ply {
	moves := p.b.LegalMoves(nil)
	out := make([]engine.Ply, len(moves))
	for i, m := range moves {
		out[i] = m
	}
	return out
}

// ParsePly parses a ply (C1): squares must be on this variant's board, and a
// two-square ply that is not a step is resolved to the shortest jump chain
// when one exists (otherwise it is returned as given, for Play to explain).
// Errors are *engine.SyntaxError.
func (p Position) ParsePly(s string) (engine.Ply, error) {
	ply, err := p.parsePly(s)
	return ply, engine.InGame(err, engine.Corners)
}

// parsePly is ParsePly before the error names the game.
func (p Position) parsePly(s string) (engine.Ply, error) {
	m, err := parseMove(s, p.b.Size())
	if err != nil {
		return nil, err
	}
	off := 0
	for i := range m.Len() {
		q := m.At(i)
		if !p.b.OnBoard(q) {
			size := p.b.Size()
			return nil, &engine.SyntaxError{Input: s, Offset: off,
				Msg: fmt.Sprintf("%s is off the %d×%d board", q, size, size)}
		}
		off += len(q.String()) + 1
	}
	if m.Len() == 2 && m.IsJump() {
		if r, err := p.b.Resolve(m); err == nil {
			return r, nil
		}
	}
	return m, nil
}

// toMove converts a ply to a Move.
func toMove(ply engine.Ply) (Move, error) {
	switch v := ply.(type) {
	case Move:
		return v, nil
	case *Move:
		if v != nil {
			return *v, nil
		}
	}
	if ply == nil {
		return Move{}, engine.Refusal("", "C1", "no_ply", "no ply given")
	}
	m, err := ParseMove(ply.String())
	if err != nil {
		return Move{}, engine.Refusal(ply.String(), "C1", "notation", err.Error(), "error", err.Error())
	}
	return m, nil
}

// Play applies a ply for the side to move (see Board.Resolve) and returns
// the new position. Errors are *engine.RuleError naming the rule, or wrap
// engine.ErrGameOver.
func (p Position) Play(ply engine.Ply) (engine.Position, error) {
	if p.b.outcome.Over() {
		s := "(none)"
		if ply != nil {
			s = ply.String()
		}
		return nil, fmt.Errorf("play %s: %w", s, engine.ErrGameOver)
	}
	m, err := toMove(ply)
	if err != nil {
		return nil, err
	}
	return p.PlayMove(m)
}

// PlayMove is Play for a Move, returning the concrete Position.
func (p Position) PlayMove(m Move) (Position, error) {
	nb, played, err := p.b.Play(m)
	if err != nil {
		return p, err
	}
	hist := make([]uint64, len(p.hist)+1)
	copy(hist, p.hist)
	hist[len(p.hist)] = nb.hash
	if !nb.outcome.Over() && !nb.spec().solo {
		seen := 0
		for _, h := range hist {
			if h == nb.hash {
				seen++
			}
		}
		if seen >= 3 {
			nb.outcome = engine.DrawBy(engine.ReasonRepetition) // C6.4
		}
	}
	return Position{b: nb, last: played, hist: hist}, nil
}

// View returns the position itself: Corners hides nothing.
func (p Position) View(engine.Seat) engine.View { return p }

// SeatName returns "white" or "black" ("none" for NoSeat).
func (p Position) SeatName(s engine.Seat) string { return seatName(s) }

func seatName(s engine.Seat) string {
	switch s {
	case engine.First:
		return "white"
	case engine.Second:
		return "black"
	}
	return "none"
}

// outcomeText says the outcome with seat names: "ongoing", "white wins
// (goal)", "draw (repetition)".
func outcomeText(o engine.Outcome) string {
	switch o.Result {
	case engine.Win:
		return fmt.Sprintf("%s wins (%s)", seatName(o.Winner), o.Reason)
	case engine.Draw:
		return fmt.Sprintf("draw (%s)", o.Reason)
	}
	return "ongoing"
}

// Render draws the board with coordinates, top rank first. A piece is W or
// B, an empty square '.', and home squares are bracketed: [W], [.]. Below
// come the side to move, the move number with the deadline and limit, and
// the outcome.
func (p Position) Render() string { return p.render(false) }

// RenderFlipped draws the board as black sees it: rank 1 at the top and
// the last file on the left (the board turned half a turn), otherwise as
// Render.
func (p Position) RenderFlipped() string { return p.render(true) }

func (p Position) render(flipped bool) string {
	b := &p.b
	sp := b.spec()
	var sb strings.Builder
	// order lists 0..n-1, reversed when the board is turned.
	order := func(n int) []int {
		out := make([]int, n)
		for i := range out {
			out[i] = i
			if flipped {
				out[i] = n - 1 - i
			}
		}
		return out
	}
	files := func() {
		sb.WriteString("    ")
		for i, f := range order(sp.size) {
			fmt.Fprintf(&sb, " %c", 'a'+f)
			if i < sp.size-1 {
				sb.WriteByte(' ')
			}
		}
		sb.WriteByte('\n')
	}
	files()
	for i := range sp.size {
		r := sp.size - 1 - i // the top rank first: the last, or 1 when turned
		if flipped {
			r = i
		}
		fmt.Fprintf(&sb, "%3d ", r+1)
		for _, f := range order(sp.size) {
			q := Square(r*16 + f)
			c := byte('.')
			switch b.PieceAt(q) {
			case engine.First:
				c = 'W'
			case engine.Second:
				c = 'B'
			}
			if sp.home[0].has(q) || sp.home[1].has(q) {
				fmt.Fprintf(&sb, "[%c]", c)
			} else {
				fmt.Fprintf(&sb, " %c ", c)
			}
		}
		fmt.Fprintf(&sb, " %d\n", r+1)
	}
	files()
	switch {
	case b.outcome.Over() && sp.solo:
		fmt.Fprintf(&sb, "game over after %d moves", b.MoveNumber())
	case b.outcome.Over():
		fmt.Fprintf(&sb, "game over at move %d", b.MoveNumber())
	default:
		fmt.Fprintf(&sb, "%s to move, move %d", seatName(b.ToMove()), b.MoveNumber())
	}
	if sp.deadline > 0 {
		fmt.Fprintf(&sb, " (leave home by move %d, last move %d)\n", sp.deadline, sp.limit)
	} else {
		fmt.Fprintf(&sb, " (last move %d)\n", sp.limit)
	}
	if m, ok := p.LastPly(); ok {
		fmt.Fprintf(&sb, "last ply %s\n", m)
	}
	fmt.Fprintf(&sb, "%s\n", outcomeText(b.outcome))
	return sb.String()
}

// Encode returns the position as seven fields joined by single spaces:
//
//	variant side plies white black last outcome
//
// side is w, b, or - once the game is over; plies is the number of plies
// played; white and black are the pieces' squares in increasing order
// (a1 < b1 < … < a2), joined by ",", or "-" for none; last is the last ply
// in full, or "-" when unknown (always at the start); outcome is "ongoing", "white:REASON",
// "black:REASON" or "draw:REASON" with engine.Reason's names. For example
//
//	classic-3x3 w 0 a1,b1,c1,a2,b2,c2,a3,b3,c3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - ongoing
//
// The repetition history is not encoded: a decoded position starts a fresh
// one.
func (p Position) Encode() string {
	b := &p.b
	var sb strings.Builder
	sb.WriteString(b.spec().v.ID)
	switch b.ToMove() {
	case engine.First:
		sb.WriteString(" w ")
	case engine.Second:
		sb.WriteString(" b ")
	default:
		sb.WriteString(" - ")
	}
	sb.WriteString(strconv.Itoa(int(b.plies)))
	for s := range 2 {
		sb.WriteByte(' ')
		sq := b.pieces[s].squares(nil)
		if len(sq) == 0 {
			sb.WriteByte('-')
		}
		for i, q := range sq {
			if i > 0 {
				sb.WriteByte(',')
			}
			sb.WriteString(q.String())
		}
	}
	sb.WriteByte(' ')
	if p.last.n == 0 {
		sb.WriteByte('-')
	} else {
		sb.WriteString(p.last.String())
	}
	sb.WriteByte(' ')
	switch o := b.outcome; o.Result {
	case engine.Win:
		sb.WriteString(seatName(o.Winner) + ":" + o.Reason.String())
	case engine.Draw:
		sb.WriteString("draw:" + o.Reason.String())
	default:
		sb.WriteString("ongoing")
	}
	return sb.String()
}

// DecodeView is Decode for a view: a Corners view is the position itself.
func DecodeView(s string) (engine.View, error) {
	p, err := Decode(s)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// Decode is the exact inverse of Position.Encode. It checks that the text is
// canonical and the position possible: errors wrap engine.ErrUnknownVariant
// or engine.ErrBadSetup.
func Decode(s string) (engine.Position, error) {
	p, err := DecodePosition(s)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// DecodePosition is Decode returning the concrete Position.
func DecodePosition(s string) (Position, error) {
	bad := func(format string, args ...any) (Position, error) {
		return Position{}, fmt.Errorf("decode corners position %q: %s: %w", s, fmt.Sprintf(format, args...), engine.ErrBadSetup)
	}
	f := strings.Split(s, " ")
	if len(f) != 7 {
		return bad("want 7 fields separated by single spaces, got %d", len(f))
	}
	vi, ok := lookup(f[0])
	if !ok {
		return Position{}, fmt.Errorf("decode corners position: variant %q: %w", f[0], engine.ErrUnknownVariant)
	}
	b := Board{variant: vi}
	sp := b.spec()
	n, err := strconv.Atoi(f[2])
	if err != nil || n < 0 || strconv.Itoa(n) != f[2] {
		return bad("plies %q is not a number", f[2])
	}
	maxPlies := 2 * sp.limit
	if sp.solo {
		maxPlies = sp.limit
	}
	if n > maxPlies {
		return bad("%d plies is past the move limit", n)
	}
	b.plies = int32(n)
	for s := range 2 {
		field := f[3+s]
		want := sp.pieces
		if sp.solo && s == 1 {
			want = 0
		}
		if field == "-" {
			if want != 0 {
				return bad("%s has no pieces", seatName(engine.Seat(s+1)))
			}
			continue
		}
		var prev Square
		for i, t := range strings.Split(field, ",") {
			q, err := ParseSquare(t)
			if err != nil || !b.OnBoard(q) {
				return bad("bad square %q", t)
			}
			if i > 0 && q <= prev {
				return bad("squares out of order at %s", t)
			}
			if b.pieces[1-s].has(q) {
				return bad("two pieces on %s", t)
			}
			prev = q
			b.pieces[s].set(q)
		}
		if got := b.pieces[s].count(); got != want {
			return bad("%s has %d pieces, want %d", seatName(engine.Seat(s+1)), got, want)
		}
	}
	switch f[6] {
	case "ongoing":
	default:
		who, why, ok := strings.Cut(f[6], ":")
		if !ok {
			return bad("bad outcome %q", f[6])
		}
		r, err := engine.ParseReason(why)
		if err != nil || r == engine.NoReason || r > engine.ReasonNoLegalMove && r != engine.ReasonCompleted {
			return bad("bad outcome reason %q", why)
		}
		switch who {
		case "white":
			b.outcome = engine.WinFor(engine.First, r)
		case "black":
			b.outcome = engine.WinFor(engine.Second, r)
		case "draw":
			b.outcome = engine.DrawBy(r)
		default:
			return bad("bad outcome %q", f[6])
		}
		if n == 0 {
			return bad("a game cannot end before its first ply")
		}
		if (r == engine.ReasonCompleted) != (sp.solo && b.outcome.Winner == engine.First) {
			return bad("outcome %q does not fit %s", f[6], sp.v.ID)
		}
	}
	side := map[engine.Seat]string{engine.First: "w", engine.Second: "b", engine.NoSeat: "-"}[b.ToMove()]
	if f[1] != side {
		return bad("side to move %q does not fit %d plies and the outcome (want %q)", f[1], n, side)
	}
	var last Move
	if f[5] != "-" {
		if n == 0 {
			return bad("last ply %q at the start", f[5])
		}
		m, err := ParseMove(f[5])
		if err != nil {
			return bad("last ply: %v", err)
		}
		for i := range m.Len() {
			if !b.OnBoard(m.At(i)) {
				return bad("last ply %q leaves the board", f[5])
			}
		}
		mover := (n - 1) % 2
		if sp.solo {
			mover = 0
		}
		if !b.pieces[mover].has(m.To()) {
			return bad("last ply %q does not end on a %s piece", f[5], seatName(engine.Seat(mover+1)))
		}
		last = m
	}
	b.hash = b.computeHash()
	p := NewPosition(b)
	p.last = last
	return p, nil
}
