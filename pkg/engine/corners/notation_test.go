package corners

import (
	"errors"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

// TestNotation checks C1's notation: ParseMove and Move.String are exact
// inverses, and squares run a–p, 1–16.
func TestNotation(t *testing.T) {
	tests := []struct {
		give string
		len  int
		jump bool
	}{
		{"c3-d3", 2, false},
		{"c3-e3-e5", 3, true},
		{"a1-b2", 2, false},
		{"p16-n14", 2, true},
		{"a10-a12-c12-c10", 4, true},
	}
	for _, tt := range tests {
		m, err := ParseMove(tt.give)
		if err != nil {
			t.Fatalf("ParseMove(%q): %v", tt.give, err)
		}
		if m.String() != tt.give || m.Len() != tt.len || m.IsJump() != tt.jump {
			t.Errorf("ParseMove(%q) = %s, len %d, jump %v; want len %d, jump %v",
				tt.give, m, m.Len(), m.IsJump(), tt.len, tt.jump)
		}
		back, _ := NewMove(m.Path()...)
		if back != m {
			t.Errorf("NewMove(Path()) = %v, want %v", back, m)
		}
	}
	for f := range 16 {
		for r := range 16 {
			q, _ := SquareAt(f, r)
			back, err := ParseSquare(q.String())
			if err != nil || back != q || q.File() != f || q.Rank() != r {
				t.Errorf("square (%d,%d): %s parses to %v, %v", f, r, q, back, err)
			}
		}
	}
	if got := (Move{}).String(); got != "(none)" {
		t.Errorf("zero Move prints %q", got)
	}
}

// TestEncode checks that Decode is the exact inverse of Encode, over the
// start of every variant and random games (the encoding's doc comment).
func TestEncode(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, v := range Variants() {
		p := start(t, v.ID)
		for i := 0; i < 300; i++ {
			s := p.Encode()
			d, err := DecodePosition(s)
			if err != nil {
				t.Fatalf("%s: Decode(%q): %v", v.ID, s, err)
			}
			if d.Encode() != s || d.Board() != p.Board() || d.last != p.last {
				t.Fatalf("%s: Decode(%q) encodes as %q", v.ID, s, d.Encode())
			}
			view, err := DecodeView(s)
			if err != nil || view.Encode() != s {
				t.Fatalf("DecodeView(%q) = %v", s, err)
			}
			if p.Outcome().Over() {
				break
			}
			b := p.Board()
			legal := b.LegalMoves(nil)
			p, err = p.PlayMove(legal[rng.IntN(len(legal))])
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	bad := []struct {
		give string
		want error
	}{
		{"", engine.ErrBadSetup},
		{"chess w 0 - - - ongoing", engine.ErrUnknownVariant},
		{"classic-3x3 w 0 a1,b1,c1,a2,b2,c2,a3,b3,c3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - ongoing ", engine.ErrBadSetup},
		{"classic-3x3  w 0 a1,b1,c1,a2,b2,c2,a3,b3,c3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - ongoing", engine.ErrBadSetup},
		{"classic-3x3 b 0 a1,b1,c1,a2,b2,c2,a3,b3,c3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - ongoing", engine.ErrBadSetup},
		{"classic-3x3 w 00 a1,b1,c1,a2,b2,c2,a3,b3,c3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - ongoing", engine.ErrBadSetup},
		{"classic-3x3 w 0 b1,a1,c1,a2,b2,c2,a3,b3,c3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - ongoing", engine.ErrBadSetup},
		{"classic-3x3 w 0 a1,b1,c1,a2,b2,c2,a3,b3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - ongoing", engine.ErrBadSetup},
		{"classic-3x3 w 0 a1,b1,c1,a2,b2,c2,a3,b3,f6 f6,g6,h6,f7,g7,h7,f8,g8,h8 - ongoing", engine.ErrBadSetup},
		{"classic-3x3 w 0 a1,b1,c1,a2,b2,c2,a3,b3,i3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - ongoing", engine.ErrBadSetup},
		{"classic-3x3 w 2 a1,b1,c1,a2,b2,c2,a3,b3,c3 f6,g6,h6,f7,g7,h7,f8,g8,h8 c3-d3 ongoing", engine.ErrBadSetup},
		{"classic-3x3 w 0 a1,b1,c1,a2,b2,c2,a3,b3,c3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - white:goal", engine.ErrBadSetup},
		{"classic-3x3 - 2 a1,b1,c1,a2,b2,c2,a3,b3,c3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - white:time", engine.ErrBadSetup},
		{"classic-3x3 w 162 a1,b1,c1,a2,b2,c2,a3,b3,c3 f6,g6,h6,f7,g7,h7,f8,g8,h8 - ongoing", engine.ErrBadSetup},
		{"training w 0 a1,b1,c1,a2,b2,c2,a3,b3,c3 f6 - ongoing", engine.ErrBadSetup},
	}
	for _, tt := range bad {
		if _, err := Decode(tt.give); !errors.Is(err, tt.want) {
			t.Errorf("Decode(%q) = %v, want %v", tt.give, err, tt.want)
		}
	}
}

// TestRender compares Render with golden files (C1's coordinates, homes
// bracketed); go test -update rewrites them.
func TestRender(t *testing.T) {
	tests := []struct {
		name string
		pos  Position
	}{
		{"classic-3x3-start", start(t, "classic-3x3")},
		{"classic-3x3-chain", play(t, chainPosition(t), "c3-e5")},
		{"classic-3x3-return-home", play(t, setup(t, "classic-3x3", 80,
			"d3 d2 e1 f1 g1 h1 e4 f4 g4", "c2 b3 a7 b7 c7 d7 a8 b8 e6"), "d3-c3")},
		{"triangle-start", start(t, "triangle")},
		{"halma-16x16-start", start(t, "halma-16x16")},
		{"training-completed", play(t, setup(t, "training", 30, "f6 g6 h6 f7 g7 h7 g8 h8 e8", ""), "e8-f8")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := "testdata/" + tt.name + ".golden"
			got := tt.pos.Render()
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden file (go test -update writes it): %v", err)
			}
			if got != string(want) {
				t.Errorf("Render() =\n%s\nwant\n%s", got, want)
			}
			if !strings.Contains(got, " 1 ") || !strings.Contains(got, " a ") {
				t.Errorf("Render() lacks coordinates")
			}
		})
	}
}

// RenderFlipped is Render turned half a turn (black's view): each board
// row of Render read backwards, the rows bottom up, the coordinates
// following; the lines under the board are the same.
func TestRenderFlipped(t *testing.T) {
	for _, p := range []Position{play(t, chainPosition(t), "c3-e5"), start(t, "halma-16x16")} {
		plain, turned := strings.Split(p.Render(), "\n"), strings.Split(p.RenderFlipped(), "\n")
		size := p.b.spec().size
		if len(plain) != len(turned) {
			t.Fatalf("%d lines, turned %d", len(plain), len(turned))
		}
		for i := 1; i <= size; i++ {
			a, b := plain[i], turned[size+1-i]
			// "%3d " then 3 columns a square, then " %d": the squares turned, the ranks kept with their rows.
			cells := func(l string) string { return l[4 : 4+3*size] }
			if cells(a) != reverse(cells(b)) || strings.Fields(a)[0] != strings.Fields(b)[0] {
				t.Errorf("row %q is not %q turned", a, b)
			}
		}
		if f := strings.Fields(turned[0]); f[0] != string(rune('a'+size-1)) || f[size-1] != "a" {
			t.Errorf("files %q", turned[0])
		}
		if strings.Join(plain[size+2:], "\n") != strings.Join(turned[size+2:], "\n") {
			t.Errorf("below the board:\n%s\nturned:\n%s", p.Render(), p.RenderFlipped())
		}
	}
}

// reverse reverses s, reading "[W]" back as "[W]": brackets swap too.
func reverse(s string) string {
	r := []byte(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	for i, c := range r {
		switch c {
		case '[':
			r[i] = ']'
		case ']':
			r[i] = '['
		}
	}
	return string(r)
}

// TestParseMoveErrorOffset: a syntax error's offset is the first character
// that is actually wrong, on the 16×16 grid of notation: the digit that no
// rank 1–16 starts with, not the rank's first digit.
func TestParseMoveErrorOffset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give       string
		wantOffset int
	}{
		{give: "a1-a17", wantOffset: 5},
		{give: "a17-a1", wantOffset: 2},
		{give: "a20-a1", wantOffset: 2},
		{give: "a100-a1", wantOffset: 3},
		{give: "a0-a1", wantOffset: 1},
		{give: "a01-a1", wantOffset: 1},
		{give: "q1-a1", wantOffset: 0},
		{give: "a-a1", wantOffset: 1},
		{give: "a16-a1x", wantOffset: 6},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			_, err := ParseMove(tt.give)
			var se *engine.SyntaxError
			if !errors.As(err, &se) || se.Offset != tt.wantOffset {
				t.Errorf("ParseMove(%q) = %v, want a syntax error at offset %d", tt.give, err, tt.wantOffset)
			}
		})
	}
}
