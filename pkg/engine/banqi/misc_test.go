package banqi

import (
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const layout001 = "pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP"

// TestBadSetup checks that bad layouts are refused with a message naming
// what and where (B1), never a panic.
func TestBadSetup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		variant string
		layout  string
		wantErr error
		wantMsg string
	}{
		{"empty layout", "standard", "", engine.ErrBadSetup, "layout has 0 letters, want 32"},
		{"31 letters", "standard", layout001[:31], engine.ErrBadSetup, "layout has 31 letters, want 32"},
		{"33 letters", "standard", layout001 + "P", engine.ErrBadSetup, "layout has 33 letters, want 32"},
		{"unknown letter", "standard", "pnXAABcppKbcrkPbNpCBaNPRpaPRrPCP", engine.ErrBadSetup, `unknown letter 'X' at c1 (letter 3)`},
		{"space", "standard", "pn AABcppKbcrkPbNpCBaNPRpaPRrPCP", engine.ErrBadSetup, `unknown letter ' ' at c1`},
		{"two red generals", "standard", "KnnAABcppKbcrkPbNpCBaNPRpaPRrPCP", engine.ErrBadSetup, "layout has 2 red generals (K), want 1"},
		{"a red soldier made black", "standard", "pnnAABcppKbcrkPbNpCBaNPRpaPRrpCP", engine.ErrBadSetup, "layout has 4 red soldiers (P), want 5"},
		{"three red cannons", "standard", "pnnAABcppKbcrkPbNpCBaNPRpaCRrPCP", engine.ErrBadSetup, "layout has 3 red cannons (C), want 2"},
		{"unknown variant", "classic", layout001, engine.ErrUnknownVariant, `banqi variant "classic"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := New(tt.variant, tt.layout)
			if !errors.Is(err, tt.wantErr) || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("New(%q, %q) = %v, want %v containing %q", tt.variant, tt.layout, err, tt.wantErr, tt.wantMsg)
			}
		})
	}
	if _, err := New("standard", layout001); err != nil {
		t.Errorf("valid layout refused: %v", err)
	}
}

// TestBadPlies checks the messages of refused plies (B3, B4): they say what
// is wrong and why.
func TestBadPlies(t *testing.T) {
	t.Parallel()
	l, err := ParseLayout(layout001)
	if err != nil {
		t.Fatal(err)
	}
	// d1 is a red advisor (first is red), e1 a red advisor, c1 a black
	// horse; black (second) is to move.
	p := playAll(t, l.Position(), "d1", "e1", "c1")
	tests := []struct {
		name    string
		ply     string
		wantMsg string
	}{
		{"reveal of a revealed square", "d1", "d1 is already revealed (red advisor)"},
		{"move of a face-down piece", "a1-a2", "the piece on a1 is face down"},
		{"move of an enemy piece", "d1-d2", "d1 holds a red advisor, not one of black's pieces"},
		{"capture a face-down piece", "c1xb1", "b1 is face down: face-down pieces cannot be captured"},
		{"move onto a face-down piece", "c1-b1", "b1 is face down: face-down pieces cannot be moved onto"},
		{"capture of a higher rank", "c1xd1", "a horse cannot capture an advisor, which ranks higher (B4.1)"},
		{"step onto a piece", "c1-d1", "d1 is occupied by a red advisor"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := p.PlayMove(mustMove(t, tt.ply))
			if err == nil || !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("%s: %v, want %q", tt.ply, err, tt.wantMsg)
			}
		})
	}
	if _, err := p.Play(nil); !errors.Is(err, engine.ErrIllegalMove) {
		t.Errorf("Play(nil) = %v", err)
	}
	for _, s := range []string{"", "z9", "a1-", "a1*b1", "a1-b1-c1", "a1-a1"} {
		if _, err := p.ParsePly(s); err == nil {
			t.Errorf("ParsePly(%q) accepted", s)
		}
	}
	for _, s := range []string{"", " ", "banqi", strings.Repeat("?", 40), layout001 + " first - 0 0 -"} {
		if _, err := Decode(s); !errors.Is(err, engine.ErrBadSetup) {
			t.Errorf("Decode(%q) = %v", s, err)
		}
		if _, err := DecodeView(s); !errors.Is(err, engine.ErrBadSetup) {
			t.Errorf("DecodeView(%q) = %v", s, err)
		}
	}
}

// referenceLayout is LayoutFromSeed written again from its documentation,
// another way: the whole word stream first, then the shuffle.
func referenceLayout(seed [32]byte) Layout {
	var words []uint32
	for j := uint64(0); j < 8; j++ {
		msg := append(seed[:], byte(j>>56), byte(j>>48), byte(j>>40), byte(j>>32), byte(j>>24), byte(j>>16), byte(j>>8), byte(j))
		sum := sha256.Sum256(msg)
		for k := 0; k < 32; k += 4 {
			words = append(words, uint32(sum[k])<<24|uint32(sum[k+1])<<16|uint32(sum[k+2])<<8|uint32(sum[k+3]))
		}
	}
	set := []byte("KAABBRRNNCCPPPPPkaabbrrnnccppppp")
	for i := 31; i >= 1; i-- {
		n := uint64(i + 1)
		for {
			w := uint64(words[0])
			words = words[1:]
			if w < (1<<32)-(1<<32)%n {
				j := w % n
				set[i], set[j] = set[j], set[i]
				break
			}
		}
	}
	l, err := ParseLayout(string(set))
	if err != nil {
		panic(err)
	}
	return l
}

// TestLayoutFromSeed checks that a seed gives a valid layout, the one its
// documentation describes, and that the commitment is the seed's SHA-256
// (B1, B6).
func TestLayoutFromSeed(t *testing.T) {
	t.Parallel()
	var onSquare [NumSquares]int
	const n = 3200
	for i := range n {
		var seed [32]byte
		copy(seed[:], fmt.Sprintf("seed %d", i))
		l := LayoutFromSeed(seed)
		if l != LayoutFromSeed(seed) || l != referenceLayout(seed) {
			t.Fatalf("seed %d: layout %s is not the documented one %s", i, l, referenceLayout(seed))
		}
		if back, err := ParseLayout(l.String()); err != nil || back != l {
			t.Fatalf("seed %d: layout %s: %v", i, l, err)
		}
		for s, p := range l {
			if p == MakePiece(Red, General) {
				onSquare[s]++
			}
		}
		if want := fmt.Sprintf("%x", sha256.Sum256(seed[:])); SeedCommitment(seed) != want {
			t.Fatalf("commitment %s, want %s", SeedCommitment(seed), want)
		}
	}
	// The red general lands on each square about n/32 = 100 times; a
	// broken shuffle (none, or a fixed swap) piles it up on few squares.
	for s, c := range onSquare {
		if c < 50 || c > 160 {
			t.Errorf("red general on %s %d times in %d layouts, want about %d", Square(s), c, n, n/NumSquares)
		}
	}
	if LayoutFromSeed([32]byte{1}) == LayoutFromSeed([32]byte{2}) {
		t.Errorf("two seeds give one layout")
	}
}

// TestRender compares the renders of the true position and of the view
// with golden files; run with -update to rewrite them.
func TestRender(t *testing.T) {
	t.Parallel()
	r := readRecord(t, "testdata/real-games/banqi-001.txt")
	l, err := ParseLayout(r.header["layout"])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 1, 25, len(r.plies)} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			t.Parallel()
			p := playAll(t, l.Position(), r.plies[:n]...)
			got := p.Render() + "\n" + p.PublicView().Render()
			path := filepath.Join("testdata", fmt.Sprintf("render-001-%03d.golden", n))
			if *update {
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("render after %d plies:\n%s\nwant:\n%s", n, got, want)
			}
		})
	}
}

// TestPerftViewAgrees counts ply sequences through the view (reveals with
// the true identity) and through the true position.
func TestPerftViewAgrees(t *testing.T) {
	t.Parallel()
	depth := 3
	if !testing.Short() {
		depth = 4
	}
	r := readRecord(t, "testdata/real-games/banqi-002.txt")
	l, err := ParseLayout(r.header["layout"])
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{0, 40, 100} {
		p := playAll(t, l.Position(), r.plies[:n]...)
		if got, want := viewPerft(t, p.PublicView(), p, depth), p.Perft(depth); got != want {
			t.Errorf("after %d plies: view perft(%d) = %d, position %d", n, depth, got, want)
		}
	}
}

func viewPerft(t *testing.T, v View, truth Position, depth int) uint64 {
	if depth == 0 {
		return 1
	}
	var n uint64
	for _, m := range v.LegalMoves(nil) {
		var next View
		var err error
		if m.Kind() == KindReveal {
			next, err = v.Reveal(m.From(), truth.PieceAt(m.From()))
		} else {
			next, err = v.PlayMove(m)
		}
		if err != nil {
			t.Fatal(err)
		}
		tn, err := truth.PlayMove(m)
		if err != nil {
			t.Fatal(err)
		}
		n += viewPerft(t, next, tn, depth-1)
	}
	return n
}

func midGame(b *testing.B) Position {
	b.Helper()
	r := readRecord(b, "testdata/real-games/banqi-002.txt")
	l, err := ParseLayout(r.header["layout"])
	if err != nil {
		b.Fatal(err)
	}
	p := l.Position()
	for _, s := range r.plies[:60] {
		m, err := ParseMove(s)
		if err != nil {
			b.Fatal(err)
		}
		if p, err = p.PlayMove(m); err != nil {
			b.Fatal(err)
		}
	}
	return p
}

func BenchmarkLegalMoves(b *testing.B) {
	p := midGame(b)
	buf := make([]Move, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		buf = p.LegalMoves(buf[:0])
	}
}

func BenchmarkViewLegalMoves(b *testing.B) {
	v := midGame(b).PublicView()
	buf := make([]Move, 0, 128)
	b.ReportAllocs()
	for b.Loop() {
		buf = v.LegalMoves(buf[:0])
	}
}

func BenchmarkPlayMove(b *testing.B) {
	p := midGame(b)
	ms := p.LegalMoves(nil)
	b.ReportAllocs()
	for b.Loop() {
		for _, m := range ms {
			if _, err := p.PlayMove(m); err != nil {
				b.Fatal(err)
			}
		}
	}
}

func BenchmarkPerft3(b *testing.B) {
	p := midGame(b)
	b.ReportAllocs()
	for b.Loop() {
		p.Perft(3)
	}
}

// TestParseMoveErrorOffset: a syntax error's offset is the first character
// that is actually wrong (the rank 5 of "a5", not its file a), or the end
// of the ply where a character is missing.
func TestParseMoveErrorOffset(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give       string
		wantOffset int
		wantMsg    string // a fragment of the message
	}{
		{give: "", wantOffset: 0, wantMsg: "want a square"},
		{give: "a", wantOffset: 1, wantMsg: "rank 1–4"},
		{give: "a5", wantOffset: 1, wantMsg: "rank 1–4"},
		{give: "a9", wantOffset: 1, wantMsg: "rank 1–4"},
		{give: "a0", wantOffset: 1, wantMsg: "rank 1–4"},
		{give: "i1", wantOffset: 0, wantMsg: "file letter a–h"},
		{give: "A1", wantOffset: 0, wantMsg: "file letter a–h"},
		{give: "a12", wantOffset: 2, wantMsg: "want '-'"},
		{give: "a1-", wantOffset: 3, wantMsg: "want a square"},
		{give: "a1-b", wantOffset: 4, wantMsg: "rank 1–4"},
		{give: "a1-b5", wantOffset: 4, wantMsg: "rank 1–4"},
		{give: "a1xj2", wantOffset: 3, wantMsg: "file letter a–h"},
		{give: "a1-a2-", wantOffset: 5, wantMsg: "end of the ply"},
		{give: "a1-a1", wantOffset: 3, wantMsg: "starts from"},
	}
	for _, tt := range tests {
		t.Run(tt.give, func(t *testing.T) {
			t.Parallel()
			m, err := ParseMove(tt.give)
			var se *engine.SyntaxError
			if !errors.As(err, &se) || m != NoMove || se.Offset != tt.wantOffset || !strings.Contains(se.Msg, tt.wantMsg) {
				t.Errorf("ParseMove(%q) = %v, %v; want a syntax error at offset %d saying %q", tt.give, m, err, tt.wantOffset, tt.wantMsg)
			}
		})
	}
	for give, want := range map[string]int{"c2": -1, "c5": 1, "c2x": 2, "": 0} {
		_, err := ParseSquare(give)
		var se *engine.SyntaxError
		if want < 0 && err != nil || want >= 0 && (!errors.As(err, &se) || se.Offset != want) {
			t.Errorf("ParseSquare(%q) = %v, want offset %d (-1: none)", give, err, want)
		}
	}
}
