package player

import (
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/corners"
	"tabuleiro.dev/services/bot/internal/search"
)

func cPosition(t *testing.T, s string) corners.Board {
	t.Helper()
	p, err := corners.DecodePosition(s)
	if err != nil {
		t.Fatal(err)
	}
	return p.Board()
}

// cExpertPly is the Corners expert's ply at a fixed depth (no clock).
func cExpertPly(t *testing.T, b corners.Board, depth int) search.Result[corners.Move] {
	t.Helper()
	g := newCGame(b, false)
	g.expert, g.root = true, b.Plies()
	return search.Iterative[corners.Board, corners.Move](t.Context(), g, b, search.Limits{Depth: depth, TableBits: 14})
}

// TestCornersExpertFills: white fills black's home with e6-f6 and black
// cannot fill white's in its answer (C4): the expert plays it and knows it
// wins, at every depth.
func TestCornersExpertFills(t *testing.T) {
	t.Parallel()
	b := cPosition(t, "classic-3x3 w 100 e6,g6,h6,f7,g7,h7,f8,g8,h8 d1,e1,d2,e2,d3,e3,a4,b4,c4 - ongoing")
	for depth := 1; depth <= 4; depth++ {
		r := cExpertPly(t, b, depth)
		if r.Move.String() != "e6-f6" || (depth >= 2 && r.Score < search.WinBound) {
			t.Errorf("depth %d: expert plays %s (score %d), want the win e6-f6", depth, r.Move, r.Score)
		}
	}
}

// TestCornersExpertNarrows: below the root the expert's adapter drops the
// plies that lose ground when some ply keeps it; at the root it keeps
// every legal ply.
func TestCornersExpertNarrows(t *testing.T) {
	t.Parallel()
	b := cPosition(t, "classic-3x3 w 10 a1,b1,c1,a2,b2,a3,b3,d3,e4 e5,f6,g6,h6,f7,g7,h7,f8,g8 - ongoing")
	all := b.LegalMoves(nil)
	g := newCGame(b, false)
	g.expert, g.root = true, b.Plies()
	if got := g.Moves(&b, nil); len(got) != len(all) {
		t.Errorf("at the root the expert lists %d plies, want all %d", len(got), len(all))
	}
	g.root = b.Plies() - 2
	got := g.Moves(&b, nil)
	if len(got) == 0 || len(got) >= len(all) {
		t.Fatalf("below the root the expert lists %d of %d plies, want fewer but some", len(got), len(all))
	}
	for _, m := range got {
		f, to := m.From(), m.To()
		if to.File()+to.Rank() < f.File()+f.Rank() {
			t.Errorf("below the root the expert lists the retreat %s", m)
		}
	}
	if cMover(&b) != engine.First {
		t.Fatal("white is not to move")
	}
}
