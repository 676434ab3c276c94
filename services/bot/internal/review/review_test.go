package review

import (
	"context"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

func quoridorGame(plies ...string) Game {
	g := Game{Game: engine.Quoridor, Variant: "standard"}
	for _, p := range plies {
		g.Plies = append(g.Plies, Ply{Notation: p})
	}
	return g
}

func TestQuoridorBlunderMarked(t *testing.T) {
	g := quoridorGame("e2", "e8", "e3", "e7", "e2", "e6")
	r, err := Run(context.Background(), g, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range r.Plies {
		t.Logf("%d %s played %s best %s line %v scores %d/%d wc %.1f->%.1f drop %.1f %s depth %d nodes %d", p.Number, p.Seat, p.Played, p.Best, p.Line, p.BestScore, p.PlayedScore, p.Before, p.After, p.Drop, p.Mark, p.Depth, p.Nodes)
	}
	t.Logf("%+v critical %d", r.Seats, r.Critical)
}
