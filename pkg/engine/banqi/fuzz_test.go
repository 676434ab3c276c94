package banqi

import (
	"errors"
	"math/rand/v2"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"c2", "c2-c3", "c2xc3", "h4xa4", "", "c", "c2-", "c2-c2", "i1", "a5", "C2", "c2xc3 ", "a1=c3", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMove(s)
		if err != nil {
			var se *engine.SyntaxError
			if !errors.As(err, &se) || m != NoMove {
				t.Fatalf("ParseMove(%q) = %v, %v; want NoMove and a *engine.SyntaxError", s, m, err)
			}
			return
		}
		if m == NoMove || m.String() != s {
			t.Fatalf("ParseMove(%q) = %v (%q)", s, uint16(m), m.String())
		}
		if m2, err := ParseMove(m.String()); err != nil || m2 != m {
			t.Fatalf("round trip of %q: %v", s, err)
		}
	})
}

func FuzzParseLayout(f *testing.F) {
	for _, s := range []string{
		"pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP",
		"pnnAABcppKbcrkPbNpCBaNPRpaPRrPC",
		"pnnAABcppKbcrkPbNpCBaNPRpaPRrPCPP",
		"pnnAABcppKbcrkPbNpCBaNPRpaPRrPCX",
		"KnnAABcppKbcrkPbNpCBaNPRpaPRrPCP",
		"",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := ParseLayout(s)
		if err != nil {
			if !errors.Is(err, engine.ErrBadSetup) {
				t.Fatalf("ParseLayout(%q): %v does not wrap ErrBadSetup", s, err)
			}
			if _, err := New("standard", s); !errors.Is(err, engine.ErrBadSetup) {
				t.Fatalf("New accepted %q", s)
			}
			return
		}
		if l.String() != s {
			t.Fatalf("ParseLayout(%q).String() = %q", s, l.String())
		}
		if got := len(l.Position().LegalMoves(nil)); got != 32 {
			t.Fatalf("start of %q has %d plies, want 32 (B3)", s, got)
		}
	})
}

// fuzzViewSeeds are encodings of views met in a short random game.
func fuzzViewSeeds(f *testing.F) {
	r := rand.New(rand.NewPCG(7, 8))
	n := 0
	randomGame(f, r, randomLayout(r), func(p Position) {
		if n%17 == 0 {
			f.Add(p.PublicView().Encode())
			f.Add(p.Encode())
		}
		n++
	})
	f.Add("???????????????????????????????? first - 0 0 - -")
	f.Add("????????????????????????????????? first - 0 0 - -")
	f.Add("R??????????????????????????????? second red 0 1 a1 -")
	f.Add("R??????????????????????????????? second red 01 1 a1 -")
	f.Add("R..............................r first red 0 99 a1 KAABBRRNNCCPPPPPkaabbrrnnccppppp")
}

func FuzzDecodeView(f *testing.F) {
	fuzzViewSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		v, err := DecodeConcreteView(s)
		if err != nil {
			if !errors.Is(err, engine.ErrBadSetup) {
				t.Fatalf("DecodeView(%q): %v does not wrap ErrBadSetup", s, err)
			}
			return
		}
		if v.Encode() != s {
			t.Fatalf("DecodeView(%q).Encode() = %q", s, v.Encode())
		}
		_ = v.Render()
		for _, m := range v.LegalMoves(nil) {
			if m.Kind() == KindReveal {
				for _, c := range v.Identities(m.From()) {
					if _, err := v.Reveal(m.From(), c.Piece); err != nil {
						t.Fatalf("reveal %s as %s: %v", m, c.Piece, err)
					}
				}
				continue
			}
			if _, err := v.PlayMove(m); err != nil {
				t.Fatalf("listed ply %s refused: %v", m, err)
			}
		}
		sample := v.Sample(rand.New(rand.NewPCG(1, 1)))
		if sample.PublicView() != v {
			t.Fatalf("sample of %q has another view", s)
		}
	})
}

func FuzzDecode(f *testing.F) {
	fuzzViewSeeds(f)
	f.Fuzz(func(t *testing.T, s string) {
		p, err := DecodePosition(s)
		if err != nil {
			if !errors.Is(err, engine.ErrBadSetup) {
				t.Fatalf("Decode(%q): %v does not wrap ErrBadSetup", s, err)
			}
			return
		}
		if p.Encode() != s {
			t.Fatalf("Decode(%q).Encode() = %q", s, p.Encode())
		}
		if err := p.Validate(); err != nil {
			t.Fatal(err)
		}
		_ = p.Render()
		for _, m := range p.LegalMoves(nil) {
			q, err := p.PlayMove(m)
			if err != nil {
				t.Fatalf("listed ply %s refused: %v", m, err)
			}
			if err := q.Validate(); err != nil {
				t.Fatalf("after %s: %v", m, err)
			}
		}
	})
}

// FuzzRandomGame plays random legal games: every listed ply plays, every
// position validates and the game ends within maxPlies (B5).
func FuzzRandomGame(f *testing.F) {
	f.Add(uint64(1), uint64(2), byte(0))
	f.Add(uint64(42), uint64(7), byte(9))
	f.Fuzz(func(t *testing.T, a, b uint64, seedByte byte) {
		r := rand.New(rand.NewPCG(a, b))
		end := randomGame(t, r, LayoutFromSeed([32]byte{seedByte, byte(a)}), func(p Position) {
			if err := p.Validate(); err != nil {
				t.Fatal(err)
			}
		})
		if end.Plies() > maxPlies {
			t.Fatalf("%d plies", end.Plies())
		}
	})
}
