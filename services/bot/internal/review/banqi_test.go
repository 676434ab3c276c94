package review

import (
	"context"
	"math/rand/v2"
	"reflect"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
)

// banqiGame plays n random legal plies from layout l and returns the game
// as a record gives it to a review (each reveal with the piece it showed)
// and the true positions before each ply.
func banqiGame(t *testing.T, l banqi.Layout, moves []banqi.Move) (Game, []banqi.Position) {
	t.Helper()
	p := l.Position()
	g := Game{Game: engine.Banqi, Variant: "standard"}
	var ps []banqi.Position
	for _, m := range moves {
		ps = append(ps, p)
		next, err := p.PlayMove(m)
		if err != nil {
			t.Fatalf("ply %s: %v", m, err)
		}
		ply := Ply{Notation: m.String()}
		if m.Kind() == banqi.KindReveal {
			ply.Revealed = next.PieceAt(m.From())
		}
		g.Plies = append(g.Plies, ply)
		p = next
	}
	return g, append(ps, p)
}

// A Banqi review judges each ply from the view its mover had: the same
// plies on two layouts that agree on every piece the game revealed, and
// differ on every pair of face-down squares that hold different pieces
// (swapped), get the same review, mark for mark, and the views the review
// replays are the true positions' public views.
func TestBanqiReviewIgnoresHiddenPieces(t *testing.T) {
	rng := rand.New(rand.NewPCG(46, 1))
	l := banqi.LayoutFromSeed([32]byte{46})
	p := l.Position()
	var moves []banqi.Move
	for len(moves) < 14 && !p.Outcome().Over() {
		legal := p.LegalMoves(nil)
		m := legal[rng.IntN(len(legal))]
		moves = append(moves, m)
		p, _ = p.PlayMove(m)
	}
	g1, ps := banqiGame(t, l, moves)
	// Swap the face-down squares' pieces in pairs: another layout with the
	// same revealed pieces.
	l2 := l
	var down []banqi.Square
	final := ps[len(ps)-1]
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		if final.FaceDown(sq) {
			down = append(down, sq)
		}
	}
	changed := 0
	for i := 0; i+1 < len(down); i += 2 {
		a, b := down[i], down[i+1]
		if l2[a] != l2[b] {
			changed++
		}
		l2[a], l2[b] = l2[b], l2[a]
	}
	if changed < 3 {
		t.Fatalf("only %d face-down squares changed: pick another game", changed)
	}
	g2, _ := banqiGame(t, l2, moves)

	views, err := Views(g1)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range views {
		if got, want := v.Encode(), ps[i].PublicView().Encode(); got != want {
			t.Fatalf("view before ply %d: %s, want the public view %s", i+1, got, want)
		}
	}
	r1, err := Run(context.Background(), g1, 20_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Run(context.Background(), g2, 20_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("reviews differ with the hidden pieces:\n%+v\n%+v", r1, r2)
	}
	marked := 0
	for _, p := range r1.Plies {
		if p.Mark != Good {
			marked++
		}
	}
	t.Logf("%d plies, %d marked, %d face-down squares swapped", len(r1.Plies), marked, changed)
}

// The same game reviewed twice gets the same review (a budget in nodes).
func TestReviewIsDeterministic(t *testing.T) {
	g := quoridorGame("e2", "e8", "e3", "e7", "e4", "d7", "e5", "c7")
	r1, err := Run(context.Background(), g, 30_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Run(context.Background(), g, 30_000, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r1, r2) {
		t.Errorf("two reviews of one game differ:\n%+v\n%+v", r1, r2)
	}
}
