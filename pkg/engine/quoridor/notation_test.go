package quoridor

import (
	"errors"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

func TestMoveRoundTrip(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	check := func(m Move) {
		s := m.String()
		if seen[s] {
			t.Errorf("two moves print as %q", s)
		}
		seen[s] = true
		got, err := ParseMove(s)
		if err != nil || got != m {
			t.Errorf("ParseMove(%q) = %v, %v; want %v", s, got, err, uint16(m))
		}
	}
	for s := Square(0); s <= 80; s++ {
		m := PawnTo(s)
		if !m.IsPawn() || m.IsWall() || m.To() != s || m.At() != NoSquare {
			t.Errorf("PawnTo(%s) = %v", s, uint16(m))
		}
		check(m)
		sq, err := ParseSquare(s.String())
		if err != nil || sq != s {
			t.Errorf("ParseSquare(%q) = %v, %v", s.String(), sq, err)
		}
	}
	for f := range 8 {
		for r := range 8 {
			for _, o := range []Orientation{Horizontal, Vertical} {
				at := SquareAt(f, r)
				m, err := PlaceWall(at, o)
				if err != nil {
					t.Fatal(err)
				}
				if !m.IsWall() || m.IsPawn() || m.At() != at || m.Orientation() != o || m.To() != NoSquare {
					t.Errorf("PlaceWall(%s, %s) = %v", at, o, uint16(m))
				}
				check(m)
			}
		}
	}
	if len(seen) != 81+128 {
		t.Errorf("%d distinct moves, want %d", len(seen), 81+128)
	}
	if got := PawnTo(NoSquare); got != NoMove {
		t.Errorf("PawnTo(NoSquare) = %v", uint16(got))
	}
	if NoMove.IsPawn() || NoMove.IsWall() || NoMove.String() != "-" {
		t.Errorf("NoMove is a move: %q", NoMove)
	}
	for _, at := range []Square{SquareAt(8, 0), SquareAt(0, 8), SquareAt(8, 8), NoSquare} {
		if _, err := PlaceWall(at, Horizontal); err == nil {
			t.Errorf("PlaceWall(%s) accepted an anchor outside a1–h8", at)
		}
	}
	if _, err := PlaceWall(SquareAt(0, 0), 0); err == nil {
		t.Errorf("PlaceWall accepted orientation 0")
	}
}

func TestParseMoveErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give       string
		wantOffset int
		wantMsg    string // a fragment of the message
	}{
		{give: "", wantOffset: 0, wantMsg: "empty"},
		{give: "j1", wantOffset: 0, wantMsg: "file j is off the board"},
		{give: "z9h", wantOffset: 0, wantMsg: "off the board"},
		{give: "e0", wantOffset: 1, wantMsg: "e0 is off the board"},
		{give: "e10", wantOffset: 2, wantMsg: "e10 is off the board"},
		{give: "e99999999999999999999", wantOffset: 2, wantMsg: "off the board"},
		{give: "i1h", wantOffset: 0, wantMsg: "outside a1–h8"},
		{give: "a9v", wantOffset: 1, wantMsg: "outside a1–h8"},
		{give: "i9v", wantOffset: 0, wantMsg: "outside a1–h8"},
		{give: "e3x", wantOffset: 2, wantMsg: "want h or v"},
		{give: "e3hh", wantOffset: 3, wantMsg: "after wall e3h"},
		{give: "e2 ", wantOffset: 2, wantMsg: "want h or v"},
		{give: "E2", wantOffset: 0, wantMsg: "file letter"},
		{give: "e", wantOffset: 1, wantMsg: "rank"},
		{give: "eh", wantOffset: 1, wantMsg: "rank"},
		{give: "1e", wantOffset: 0, wantMsg: "file letter"},
		{give: "e02", wantOffset: 1, wantMsg: "off the board"},
		{give: "e100", wantOffset: 2, wantMsg: "e100 is off the board"},
		{give: "e10h", wantOffset: 2, wantMsg: "e10 is off the board"},
		{give: "e12", wantOffset: 2, wantMsg: "e12 is off the board"},
		{give: "h9h", wantOffset: 1, wantMsg: "outside a1–h8"},
		{give: "--", wantOffset: 0, wantMsg: "file letter"},
		{give: "\xff", wantOffset: 0, wantMsg: "file letter"},
		{give: "é2", wantOffset: 0, wantMsg: "got 'é'"},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			m, err := ParseMove(tt.give)
			var se *engine.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("ParseMove(%q) = %v, %v; want a *engine.SyntaxError", tt.give, m, err)
			}
			if m != NoMove || se.Input != tt.give || se.Offset != tt.wantOffset || !strings.Contains(se.Msg, tt.wantMsg) {
				t.Errorf("ParseMove(%q) = %v, %+v; want offset %d and %q", tt.give, m, se, tt.wantOffset, tt.wantMsg)
			}
		})
	}
	for _, s := range []string{"e3h", "j1", "e10", "e2x"} {
		if _, err := ParseSquare(s); err == nil {
			t.Errorf("ParseSquare(%q) accepted", s)
		}
	}
}

func TestPlayParsedPly(t *testing.T) {
	t.Parallel()
	start, err := New(Standard, "")
	if err != nil {
		t.Fatal(err)
	}
	ply, err := start.ParsePly("e3h")
	if err != nil {
		t.Fatal(err)
	}
	p, err := start.Play(ply)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := p.Encode(), "standard e1 e9 9/10 e3h b 1 e3h"; got != want {
		t.Errorf("after e3h: %q, want %q", got, want)
	}
	if _, err := start.ParsePly("j1"); err == nil {
		t.Error("ParsePly(j1) accepted")
	}
	// A ply of another type is read from its notation.
	if _, err := start.Play(foreignPly("e2")); err != nil {
		t.Errorf("Play(foreign e2) = %v", err)
	}
	var se *engine.SyntaxError
	if _, err := start.Play(foreignPly("e2 e8")); !errors.As(err, &se) {
		t.Errorf("Play(foreign garbage) = %v, want a syntax error", err)
	}
	if _, err := start.Play(nil); !errors.Is(err, engine.ErrIllegalMove) {
		t.Errorf("Play(nil) = %v", err)
	}
	if _, err := start.Play(NoMove); !errors.Is(err, engine.ErrIllegalMove) {
		t.Errorf("Play(NoMove) = %v", err)
	}
	if _, err := start.Play(Move(0x3ff)); !errors.Is(err, engine.ErrIllegalMove) {
		t.Errorf("Play(0x3ff) = %v", err)
	}
	if err := p.(Position).CanPlaceWall(PawnTo(SquareAt(4, 4))); !errors.Is(err, engine.ErrIllegalMove) {
		t.Errorf("CanPlaceWall(pawn move) = %v", err)
	}
}

type foreignPly string

func (f foreignPly) String() string { return string(f) }

func TestDecodeErrors(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, give string }{
		{"empty", ""},
		{"garbage", "hello world"},
		{"unknown variant", "barreira e1 e9 10/10 - w 0 -"},
		{"seven fields", "standard e1 e9 10/10 - w 0"},
		{"double space", "standard e1  e9 10/10 - w 0 -"},
		{"trailing space", "standard e1 e9 10/10 - w 0 - "},
		{"pawn off the board", "standard e0 e9 10/10 - w 0 -"},
		{"pawns together", "standard e5 e5 10/10 - w 0 -"},
		{"walls left", "standard e1 e9 11/10 - w 0 -"},
		{"walls left sign", "standard e1 e9 +9/10 - w 0 -"},
		{"walls left form", "standard e1 e9 10 - w 0 -"},
		{"too many walls", "standard e1 e9 10/10 e3h w 2 e9"},
		{"a square as a wall", "standard e1 e9 9/10 e3 b 1 e3"},
		{"overlapping walls", "standard e1 e9 8/10 d3h,e3h w 2 e9"},
		{"crossing walls", "standard e1 e9 8/10 e3h,e3v w 2 e9"},
		{"walls out of order", "standard e1 e9 8/10 e3h,a1h w 2 e9"},
		{"no path", "standard a1 e9 8/10 a1h,b1v w 2 e9"},
		{"wrong side to move", "standard e1 e9 10/10 - b 0 -"},
		{"last ply at the start", "standard e1 e9 10/10 - w 0 e9"},
		{"no last ply", "standard e2 e9 10/10 - b 1 -"},
		{"last ply elsewhere", "standard e2 e9 10/10 - b 1 e3"},
		{"last wall missing", "standard e1 e9 9/10 e3h b 1 d3h"},
		{"fewer plies than walls", "standard e1 e9 8/10 a1h,c1h w 0 -"},
		{"negative plies", "standard e1 e9 10/10 - w -2 e9"},
		{"huge plies", "standard e1 e9 10/10 - w 99999999999999999999 e9"},
		{"both on goal", "standard e9 e1 10/10 - - 5 e9"},
		{"winner did not move last", "standard e9 e8 10/10 - - 4 e8"},
		{"game over but side to move", "standard e9 e8 10/10 - b 5 e9"},
		{"limit200 past 200", "limit200 e1 e9 10/10 - w 202 e9"},
		{"non-canonical ply count", "standard e1 e9 10/10 - w 02 e9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if p, err := Decode(tt.give); !errors.Is(err, engine.ErrBadSetup) {
				t.Errorf("Decode(%q) = %v, %v; want ErrBadSetup", tt.give, p, err)
			}
			if _, err := DecodeView(tt.give); !errors.Is(err, engine.ErrBadSetup) {
				t.Errorf("DecodeView(%q) = %v; want ErrBadSetup", tt.give, err)
			}
		})
	}
	if _, err := Decode("barreira e1 e9 10/10 - w 0 -"); !errors.Is(err, engine.ErrUnknownVariant) {
		t.Errorf("Decode of an unknown variant = %v, want ErrUnknownVariant too", err)
	}
}
