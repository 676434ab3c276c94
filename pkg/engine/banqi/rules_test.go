package banqi

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

// mkPos builds a position from a diagram: rows for ranks 4 down to 1, each
// 8 tokens: "." empty, a letter for a revealed piece, "?" and a letter for
// a face-down piece. The first seat is red; mover is the colour to move.
func mkPos(t *testing.T, mover Colour, quiet int, rows ...string) Position {
	t.Helper()
	if len(rows) != 4 {
		t.Fatalf("want 4 rows, got %d", len(rows))
	}
	p := Position{first: Red, mover: engine.First, quiet: int16(quiet), plies: 100, last: RevealMove(0)}
	if mover == Black {
		p.mover = engine.Second
		p.plies++
	}
	for i, row := range rows {
		toks := strings.Fields(row)
		if len(toks) != 8 {
			t.Fatalf("row %q: want 8 squares", row)
		}
		for f, tok := range toks {
			sq := SquareAt(f, 3-i)
			if tok == "." {
				continue
			}
			var c cell
			if tok[0] == '?' {
				c, tok = faceDownBit, tok[1:]
			}
			pc, ok := PieceFromLetter(tok[0])
			if !ok || len(tok) != 1 {
				t.Fatalf("bad token %q", tok)
			}
			p.cells[sq] = c | cell(pc)
		}
	}
	p.outcome = decide(&p.cells, p.mover, p.first, p.piecesLeft(seatColour(p.first, p.mover)), int(p.quiet))
	return p
}

const emptyRow = ". . . . . . . ."

func TestPlyRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		rule     string // the section the case tests
		rows     [4]string
		mover    Colour
		ply      string
		wantRule string // "" when legal
	}{
		{"cannon with no screen cannot capture", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C . r . . . . ."}, Red, "a1xc1", "B4.2"},
		{"cannon over one revealed own screen", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C R r . . . . ."}, Red, "a1xc1", ""},
		{"cannon over one revealed enemy screen", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C n r . . . . ."}, Red, "a1xc1", ""},
		{"cannon over one face-down own screen", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C ?P r . . . . ."}, Red, "a1xc1", ""},
		{"cannon over one face-down enemy screen", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C ?p r . . . . ."}, Red, "a1xc1", ""},
		{"cannon at a distance along a rank", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C . . N . . k ."}, Red, "a1xg1", ""},
		{"cannon along a file takes a general", "B4.2", [4]string{"k . . . . . . .", emptyRow, "?b . . . . . . .", "C . . . . . . ."}, Red, "a1xa4", ""},
		{"black cannon leftwards", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "K . ?p . c . . ."}, Black, "e1xa1", ""},
		{"cannon over two screens", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C P ?p r . . . ."}, Red, "a1xd1", "B4.2"},
		{"cannon cannot take an adjacent soldier by rank", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C p . . . . . ."}, Red, "a1xb1", "B4.2"},
		{"cannon cannot take an adjacent cannon by rank", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C c . . . . . ."}, Red, "a1xb1", "B4.2"},
		{"cannon off its lines", "B4.2", [4]string{emptyRow, emptyRow, ". . r . . . . .", "C P . . . . . ."}, Red, "a1xc2", "B4.2"},
		{"cannon steps one square", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C . . . . . . ."}, Red, "a1-b1", ""},
		{"cannon steps up one square", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C . . . . . . ."}, Red, "a1-a2", ""},
		{"cannon does not slide", "B4.2", [4]string{emptyRow, emptyRow, emptyRow, "C . . . . . . ."}, Red, "a1-c1", "B3"},
		{"cannon target face down", "B3", [4]string{emptyRow, emptyRow, emptyRow, "C P ?r . . . . ."}, Red, "a1xc1", "B3"},
		{"cannon target own", "B3", [4]string{emptyRow, emptyRow, emptyRow, "C P R . . . . ."}, Red, "a1xc1", "B3"},
		{"soldier takes general", "B4.1", [4]string{emptyRow, emptyRow, emptyRow, "P k . . . . . ."}, Red, "a1xb1", ""},
		{"black soldier takes red general", "B4.1", [4]string{emptyRow, emptyRow, "K . . . . . . .", "p . . . . . . ."}, Black, "a1xa2", ""},
		{"general cannot take soldier", "B4.1", [4]string{emptyRow, emptyRow, emptyRow, "K p . . . . . ."}, Red, "a1xb1", "B4.1"},
		{"black general cannot take red soldier", "B4.1", [4]string{emptyRow, emptyRow, emptyRow, "P k . . . . . ."}, Black, "b1xa1", "B4.1"},
		{"general takes advisor", "B4.1", [4]string{emptyRow, emptyRow, emptyRow, "K a . . . . . ."}, Red, "a1xb1", ""},
		{"equal ranks: general takes general", "B4.1", [4]string{emptyRow, emptyRow, emptyRow, "K k . . . . . ."}, Red, "a1xb1", ""},
		{"equal ranks: chariot takes chariot", "B4.1", [4]string{emptyRow, emptyRow, emptyRow, "R r . . . . . ."}, Red, "a1xb1", ""},
		{"equal ranks: soldier takes soldier", "B4.1", [4]string{emptyRow, emptyRow, emptyRow, "P p . . . . . ."}, Red, "a1xb1", ""},
		{"horse takes cannon", "B4.1", [4]string{emptyRow, emptyRow, emptyRow, "N c . . . . . ."}, Red, "a1xb1", ""},
		{"horse cannot take chariot", "B4.1", [4]string{emptyRow, emptyRow, emptyRow, "N r . . . . . ."}, Red, "a1xb1", "B4.1"},
		{"soldier cannot take cannon", "B4.1", [4]string{emptyRow, emptyRow, emptyRow, "P c . . . . . ."}, Red, "a1xb1", "B4.1"},
		{"capture from a distance by a chariot", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R . r . . . . ."}, Red, "a1xc1", "B3"},
		{"face-down target refused", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R ?p . . . . . ."}, Red, "a1xb1", "B3"},
		{"face-down square cannot be moved onto", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R ?p . . . . . ."}, Red, "a1-b1", "B3"},
		{"face-down piece cannot move", "B3", [4]string{emptyRow, emptyRow, emptyRow, "?R . . . . . . ."}, Red, "a1-b1", "B3"},
		{"enemy piece cannot be moved", "B3", [4]string{emptyRow, emptyRow, emptyRow, "r . R . . . . ."}, Red, "a1-b1", "B3"},
		{"no piece to move", "B3", [4]string{emptyRow, emptyRow, emptyRow, ". . R . . . . ."}, Red, "a1-b1", "B3"},
		{"diagonal step", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R . . . . . . ."}, Red, "a1-b2", "B3"},
		{"step onto an enemy", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R r . . . . . ."}, Red, "a1-b1", "B3"},
		{"capture onto an empty square", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R . . . . . . ."}, Red, "a1xb1", "B3"},
		{"reveal a face-down piece", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R ?p . . . . . ."}, Red, "b1", ""},
		{"reveal an enemy-coloured face-down piece is allowed", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R ?P . . . . . ."}, Black, "b1", ""},
		{"reveal a revealed square", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R ?p . . . . . ."}, Red, "a1", "B3"},
		{"reveal an empty square", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R ?p . . . . . ."}, Red, "c1", "B3"},
		{"own piece cannot be captured", "B3", [4]string{emptyRow, emptyRow, emptyRow, "R N . . . . . ."}, Red, "a1xb1", "B3"},
	}
	for _, tt := range tests {
		t.Run(tt.rule+"/"+tt.name, func(t *testing.T) {
			t.Parallel()
			// Keep a far-away piece of each colour so that neither side has
			// run out of pieces.
			rows := tt.rows
			if rows[0] == emptyRow {
				rows[0] = ". . . . . . A a"
			}
			p := mkPos(t, tt.mover, 5, rows[:]...)
			m, err := ParseMove(tt.ply)
			if err != nil {
				t.Fatal(err)
			}
			listed := slices.Contains(p.LegalMoves(nil), m)
			_, err = p.PlayMove(m)
			if tt.wantRule == "" {
				if err != nil || !listed {
					t.Fatalf("%s: err %v, listed %v; want legal", tt.ply, err, listed)
				}
				return
			}
			var re *engine.RuleError
			if !errors.As(err, &re) || !errors.Is(err, engine.ErrIllegalMove) {
				t.Fatalf("%s: err %v, want a *engine.RuleError", tt.ply, err)
			}
			if re.Rule != tt.wantRule || re.Ply != tt.ply || re.Msg == "" {
				t.Errorf("%s: %v, want rule %s", tt.ply, err, tt.wantRule)
			}
			if listed {
				t.Errorf("%s refused but listed by LegalMoves", tt.ply)
			}
		})
	}
}

// TestCannonCaptureExample checks B4.2 on a whole line: from a1 with
// pieces on c1 (screen) and on e1 and g1, only e1 can be taken.
func TestCannonCaptureExample(t *testing.T) {
	t.Parallel()
	p := mkPos(t, Red, 0, ". . . . . . A a", emptyRow, emptyRow, "C . ?k . r . n .")
	var caps []string
	for _, m := range p.LegalMoves(nil) {
		if m.Kind() == KindCapture && m.From() == 0 {
			caps = append(caps, m.String())
		}
	}
	if want := []string{"a1xe1"}; !slices.Equal(caps, want) {
		t.Errorf("captures %v, want %v (B4.2)", caps, want)
	}
}

func TestStartHas32Reveals(t *testing.T) {
	t.Parallel()
	for seed := range byte(8) {
		l := LayoutFromSeed([32]byte{seed})
		p := l.Position()
		ms := p.LegalMoves(nil)
		if len(ms) != 32 {
			t.Fatalf("%s: %d legal plies, want 32 (B3)", l, len(ms))
		}
		for i, m := range ms {
			if m != RevealMove(Square(i)) {
				t.Errorf("ply %d is %s, want the reveal %s (B3)", i, m, Square(i))
			}
		}
		// After any reveal the second seat has the other colour, so no
		// revealed piece of its own: 31 reveals each (B2, B3).
		if got := p.Perft(2); got != 32*31 {
			t.Errorf("perft(2) = %d, want %d", got, 32*31)
		}
	}
}

// TestColoursFixedByFirstReveal checks B2: the first piece revealed gives
// its colour to the first seat, whoever's piece it is.
func TestColoursFixedByFirstReveal(t *testing.T) {
	t.Parallel()
	l, err := ParseLayout("pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		reveal     string
		wantFirst  Colour
		wantSecond Colour
	}{
		{"black piece on a1", "a1", Black, Red},
		{"red piece on d1", "d1", Red, Black},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := l.Position()
			if p.SeatName(engine.First) != "first" || p.SeatName(engine.Second) != "second" || p.Colour(engine.First) != NoColour {
				t.Fatalf("before the first reveal: %s/%s", p.SeatName(engine.First), p.SeatName(engine.Second))
			}
			if _, err := p.PlayMove(StepMove(0, 1)); err == nil {
				t.Errorf("a step before any reveal was accepted (B2, B3)")
			}
			q, err := p.PlayMove(mustMove(t, tt.reveal))
			if err != nil {
				t.Fatal(err)
			}
			if q.Colour(engine.First) != tt.wantFirst || q.Colour(engine.Second) != tt.wantSecond {
				t.Errorf("colours %s/%s, want %s/%s", q.Colour(engine.First), q.Colour(engine.Second), tt.wantFirst, tt.wantSecond)
			}
			if q.SeatName(engine.First) != tt.wantFirst.String() || q.SeatName(engine.Second) != tt.wantSecond.String() {
				t.Errorf("seat names %s/%s", q.SeatName(engine.First), q.SeatName(engine.Second))
			}
			v := q.PublicView()
			if v.Colour(engine.First) != tt.wantFirst || v.SeatName(engine.Second) != tt.wantSecond.String() {
				t.Errorf("view colours %s/%s", v.Colour(engine.First), v.Colour(engine.Second))
			}
			if q.LastRevealed() != l[mustMove(t, tt.reveal).From()] || v.LastRevealed() != q.LastRevealed() {
				t.Errorf("last revealed %s, want %s", q.LastRevealed(), l[mustMove(t, tt.reveal).From()])
			}
		})
	}
}

func mustMove(t *testing.T, s string) Move {
	t.Helper()
	m, err := ParseMove(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func playAll(t *testing.T, p Position, plies ...string) Position {
	t.Helper()
	for _, s := range plies {
		var err error
		if p, err = p.PlayMove(mustMove(t, s)); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return p
}

// TestPlyLimit checks B5.2: steps count, a reveal and a capture reset the
// count, and the 120th quiet ply draws.
func TestPlyLimit(t *testing.T) {
	t.Parallel()
	rows := []string{". . . . . . . r", emptyRow, ". . . ?p . . . .", "R n . . . . . ."}
	tests := []struct {
		name      string
		quiet     int
		plies     []string
		wantQuiet int
		want      engine.Outcome
	}{
		{"a step counts", 7, []string{"a1-a2"}, 8, engine.Outcome{}},
		{"two steps count", 7, []string{"a1-a2", "h4-h3"}, 9, engine.Outcome{}},
		{"119 is not yet a draw", 118, []string{"a1-a2"}, 119, engine.Outcome{}},
		{"the 120th quiet ply draws", 118, []string{"a1-a2", "h4-h3"}, 120, engine.DrawBy(engine.ReasonPlyLimit)},
		{"a reveal resets the count", 119, []string{"d2"}, 0, engine.Outcome{}},
		{"a capture resets the count", 119, []string{"a1xb1"}, 0, engine.Outcome{}},
		{"a reset then steps", 119, []string{"d2", "h4-h3", "a1-a2"}, 2, engine.Outcome{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := playAll(t, mkPos(t, Red, tt.quiet, rows...), tt.plies...)
			if p.Quiet() != tt.wantQuiet || p.Outcome() != tt.want {
				t.Errorf("quiet %d, outcome %v; want %d, %v (B5.2)", p.Quiet(), p.Outcome(), tt.wantQuiet, tt.want)
			}
			if v := p.PublicView(); v.Quiet() != tt.wantQuiet || v.Outcome() != tt.want {
				t.Errorf("view: quiet %d, outcome %v", v.Quiet(), v.Outcome())
			}
			if tt.want.Over() {
				if _, err := p.PlayMove(mustMove(t, "a2-a3")); !errors.Is(err, engine.ErrGameOver) {
					t.Errorf("ply after the end: %v, want ErrGameOver", err)
				}
				if len(p.LegalMoves(nil)) != 0 || p.ToMove() != engine.NoSeat {
					t.Errorf("ended game lists plies or a side to move")
				}
			}
		})
	}
}

// TestEndOfGame checks B5.1: a side with no pieces, or with only blocked
// pieces and nothing face down, loses; a face-down piece anywhere is a
// legal reveal.
func TestEndOfGame(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		rows  []string
		mover Colour
		quiet int
		plies []string
		want  engine.Outcome
	}{
		{
			"red only blocked, nothing face down: red loses",
			[]string{emptyRow, emptyRow, "r . . . . . . .", "P . r . . . . ."}, Black, 3,
			[]string{"c1-b1"},
			engine.WinFor(engine.Second, engine.ReasonNoLegalMove),
		},
		{
			"red blocked but a face-down piece remains: ongoing",
			[]string{". . . . . . . ?p", emptyRow, "r . . . . . . .", "P . r . . . . ."}, Black, 3,
			[]string{"c1-b1"},
			engine.Outcome{},
		},
		{
			"red's last piece captured: red loses",
			[]string{emptyRow, emptyRow, ". r . . . . . .", "N . . . . . . ."}, Red, 3,
			[]string{"a1-a2", "b2xa2"},
			engine.WinFor(engine.Second, engine.ReasonNoPieces),
		},
		{
			"black's last piece captured: black loses",
			[]string{emptyRow, emptyRow, emptyRow, "R n . . . . . ."}, Red, 3,
			[]string{"a1xb1"},
			engine.WinFor(engine.First, engine.ReasonNoPieces),
		},
		{
			"black's last revealed piece captured with a black piece face down: ongoing",
			[]string{". . . . . . . ?p", emptyRow, emptyRow, "R n . . . . . ."}, Red, 3,
			[]string{"a1xb1"},
			engine.Outcome{},
		},
		{
			"blocked on the 120th quiet ply: B5.1 before B5.2",
			[]string{emptyRow, emptyRow, "r . . . . . . .", "P . r . . . . ."}, Black, 119,
			[]string{"c1-b1"},
			engine.WinFor(engine.Second, engine.ReasonNoLegalMove),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := playAll(t, mkPos(t, tt.mover, tt.quiet, tt.rows...), tt.plies...)
			if p.Outcome() != tt.want {
				t.Errorf("outcome %v, want %v (B5.1)", p.Outcome(), tt.want)
			}
			if p.PublicView().Outcome() != tt.want {
				t.Errorf("view outcome %v, want %v", p.PublicView().Outcome(), tt.want)
			}
		})
	}
}
