package corners

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// FuzzParseMove: the parsers never panic, and ParseMove and Move.String are
// exact inverses (C1).
func FuzzParseMove(f *testing.F) {
	for _, s := range []string{"c3-d3", "c3-e3-e5", "p16-n14", "a1", "", "c3--d3", "c17-c1", "a0-b1", "c03-c4", "z9-a1"} {
		f.Add(s)
	}
	p := start(f, "classic-3x3")
	h := start(f, "halma-16x16")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMove(s)
		if err == nil {
			if m.String() != s {
				t.Fatalf("ParseMove(%q).String() = %q", s, m.String())
			}
			back, err := ParseMove(m.String())
			if err != nil || back != m {
				t.Fatalf("ParseMove(String()) = %v, %v; want %v", back, err, m)
			}
		}
		for _, pos := range []Position{p, h} {
			if ply, err := pos.ParsePly(s); err == nil {
				_, _ = pos.Play(ply) // must not panic
			}
			if err == nil {
				_, _ = pos.Play(m)
			}
		}
		if q, err := ParseSquare(s); err == nil && q.String() != s {
			t.Fatalf("ParseSquare(%q).String() = %q", s, q)
		}
	})
}

// FuzzDecode: Decode never panics and is the exact inverse of Encode.
func FuzzDecode(f *testing.F) {
	for _, v := range Variants() {
		f.Add(start(f, v.ID).Encode())
	}
	f.Add("classic-3x3 - 161 c3 - c3-d3 draw:move-limit")
	f.Fuzz(func(t *testing.T, s string) {
		p, err := DecodePosition(s)
		if err != nil {
			return
		}
		if got := p.Encode(); got != s {
			t.Fatalf("Decode(%q).Encode() = %q", s, got)
		}
		b := p.Board()
		for _, m := range b.LegalMoves(nil) {
			if _, err := p.PlayMove(m); err != nil {
				t.Fatalf("listed ply %s: %v", m, err)
			}
		}
	})
}

// FuzzRandomGame plays random games: every listed ply plays, its notation
// and its shorthand resolve to it, the reference generator agrees (C1, C3,
// C6.1) and the game ends by the move limit at the latest (C6.3).
func FuzzRandomGame(f *testing.F) {
	for i := range 3 * len(specs) {
		f.Add(uint64(i), uint8(i))
	}
	f.Fuzz(func(t *testing.T, seed uint64, vi uint8) {
		sp := &specs[int(vi)%len(specs)]
		rng := rand.New(rand.NewPCG(seed, 99))
		p := start(t, sp.v.ID)
		maxPlies := 2 * sp.limit
		if sp.solo {
			maxPlies = sp.limit
		}
		for ply := 0; !p.Outcome().Over(); ply++ {
			if ply >= maxPlies {
				t.Fatalf("%s: game still on after %d plies", sp.v.ID, ply)
			}
			b := p.Board()
			legal := b.LegalMoves(nil)
			if sp.size == 8 || ply%10 == 0 {
				r := refOf(p)
				if got, want := fastLegal(p), r.legal(); !slices.Equal(got, want) {
					t.Fatalf("%s ply %d at %s:\nfast      %v\nreference %v", sp.v.ID, ply, p.Encode(), got, want)
				}
			}
			for _, m := range legal {
				if _, err := p.PlayMove(m); err != nil {
					t.Fatalf("%s at %s: listed ply %s: %v", sp.v.ID, p.Encode(), m, err)
				}
				short, _ := NewMove(m.From(), m.To())
				parsed, err := p.ParsePly(short.String())
				if err != nil || parsed.(Move) != m {
					t.Fatalf("%s at %s: shorthand %s parses to %v, %v; want %s", sp.v.ID, p.Encode(), short, parsed, err, m)
				}
			}
			next, err := p.PlayMove(pick(p, legal, rng))
			if err != nil {
				t.Fatal(err)
			}
			p = next
		}
		t.Logf("%s: %s after %d plies", sp.v.ID, outcomeOf(p), p.Plies())
		if p.ToMove() != 0 || len(p.Legal()) != 0 {
			t.Fatalf("ended game still has a side to move or plies")
		}
	})
}

// pick chooses a ply: mostly the one that advances furthest toward the
// opponent's corner (so games reach C4's goals and the move limit), else a
// random one.
func pick(p Position, legal []Move, rng *rand.Rand) Move {
	if rng.IntN(10) < 3 {
		return legal[rng.IntN(len(legal))]
	}
	sign := 1
	if p.ToMove() == 2 {
		sign = -1
	}
	target := p.b.spec().home[2-int(p.ToMove())]
	in := func(q Square) int {
		if target.has(q) {
			return 1
		}
		return 0
	}
	best, bestGain := legal[0], -1<<30
	for _, m := range legal {
		gain := sign*(m.To().File()+m.To().Rank()-m.From().File()-m.From().Rank())*8 +
			(in(m.To())-in(m.From()))*40 + rng.IntN(8)
		if gain > bestGain {
			best, bestGain = m, gain
		}
	}
	return best
}
