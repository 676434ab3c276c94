package quoridor

import (
	"math/rand/v2"
	"testing"
)

// checkUnchecked checks, at p, that PlayUnchecked equals PlayMove for every
// legal ply, and that LegalMovesWithin lists exactly the legal plies whose
// walls have their anchor in within (pawn moves always).
func checkUnchecked(t *testing.T, p Position, within uint64) {
	t.Helper()
	legal := p.LegalMoves(nil)
	for _, m := range legal {
		want, err := p.PlayMove(m)
		if err != nil {
			t.Fatalf("%s: listed ply %s does not play: %v", p.Encode(), m, err)
		}
		if got := p.PlayUnchecked(m); got != want {
			t.Fatalf("%s: PlayUnchecked(%s) = %s, PlayMove gives %s", p.Encode(), m, got.Encode(), want.Encode())
		}
	}
	var want []Move
	for _, m := range legal {
		if m.IsPawn() || within>>m.anchor()&1 != 0 {
			want = append(want, m)
		}
	}
	got := p.LegalMovesWithin(nil, within)
	if len(got) != len(want) {
		t.Fatalf("%s: LegalMovesWithin(%#x) lists %d plies, want %d", p.Encode(), within, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: LegalMovesWithin(%#x)[%d] = %s, want %s", p.Encode(), within, i, got[i], want[i])
		}
	}
}

// TestPlayUncheckedRealGames: along every real game, PlayUnchecked agrees
// with PlayMove on every legal ply (Q2, Q3), and LegalMovesWithin with
// LegalMoves filtered by anchor, for all anchors and for a random set.
func TestPlayUncheckedRealGames(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 5))
	for _, g := range readGames(t) {
		p := mustStart(t)
		for i, m := range g.plies {
			checkUnchecked(t, p, ^uint64(0))
			checkUnchecked(t, p, rng.Uint64())
			var err error
			if p, err = p.PlayMove(m); err != nil {
				t.Fatalf("%s ply %d %s: %v", g.name, i+1, m, err)
			}
		}
	}
}

// TestPlayUncheckedRandomGames does the same along random games, which
// reach many more wall shapes than the real ones (Q3.4 near-closures).
func TestPlayUncheckedRandomGames(t *testing.T) {
	t.Parallel()
	games := 200
	if testing.Short() {
		games = 20
	}
	rng := rand.New(rand.NewPCG(11, 13))
	ended := 0
	for range games {
		p := mustStart(t)
		for !p.Outcome().Over() && p.Plies() < 200 {
			checkUnchecked(t, p, rng.Uint64())
			legal := p.LegalMoves(nil)
			p = p.PlayUnchecked(legal[rng.IntN(len(legal))])
		}
		// The end of a game has no legal plies, within any set (Q4).
		if p.Outcome().Over() {
			ended++
			if n := len(p.LegalMovesWithin(nil, ^uint64(0))); n != 0 {
				t.Fatalf("%s: game over (%v) but %d plies listed", p.Encode(), p.Outcome(), n)
			}
		}
	}
	if ended == 0 {
		t.Error("no random game ended")
	}
}
