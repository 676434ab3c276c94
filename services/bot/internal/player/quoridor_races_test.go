package player

import (
	"fmt"
	"os"
	"testing"

	"tabuleiro.dev/pkg/engine/quoridor"
	"tabuleiro.dev/services/bot/internal/search"
)

// wallRaceLosses are the six games of issue 49 the expert lost to other
// engines' wall races, its side first (true: white, the first player).
var wallRaceLosses = []struct {
	white bool
	plies string
}{
	{true, "d1 e8 e1 e7 e2 e6 e3 e5 d3 c5h e3 e5h f3 f2v f4 f4v a5v d4v f3 d2v f2 g1h f1 e4 e1 e3 e2v a2h d1h b1h c2h e4 f1 f4 g1 f3 h1 f2 i1 f1"},
	{true, "e2 e8 e3 d8 d3 d7 d4 d6 d5 d4 c3h c5h e3h e5h a3h c4v e5 f5v g3h g4h h2h h7h f2h f7h d2h d7h b2h b7h f5 e4h e5 e4 d5 f4 d4 g4 e4 h4 f4 i4 g4 i3 h4 h3 i4 g3 i5 f3 i6 e3 i7 d3 h7 c3 g7 b3 f7 a3 e7 a2 a1h b2 d7 c2 c1h d2 c7 e2 b7 e1"},
	{false, "e2 e8 e3 d8 d3 d7 d4 d6 c3h e6 e3h d4v g3h c4h a3h f6 e5h g6 g5h h6 h6v h7 g7h g7 e7h f7 c4 e7 d7v e6 b4 d6 b5 b6v b6 d7 b7 a7h b6 b5h a6 d8 a5 d9 b5 e9 c5 f9 d5 f8 d6 g8 d7 c7v d8 c8h d7 h8 d6 i8 c6 i7 c7 i6 c8 i5 b8 i4 b9"},
	{true, "e2 e8 e3 d8 d3 d7 d4 d6 c4 c6h c5 a6h d5 d5v d4 d3v d3 d2h c3 b2h a1h e2v b4v f3h b3 d5 a3 c5 a2 c6 b2 f1v c2 c3h d2 b6 e2 b5 e1 a5 f1 a4 f2 a3 f3 a2 g3 b2 h3 c2 c1h d2 h4 e2 h5 e1"},
	{false, "f1 f9 f2 g9 e2 f9 e3 f8 e4 f7 f6h e7 e5 d7 e6 e7h c5h d6 e5h f6 f5v d6 a5h d7 c7h a7h d7v g7h h5h d6 g4h h7v h3h f6 e7 e6 f7 e7 g7 f7 h7 g7 h6 h7 i6 h6 i7 g6 i8 g5 i9"},
	{true, "e2 e8 e3 e7 e4 e6 f4 f6h f5 d6h e5h h6h e5 d4v e4 e3h f4 c5v g4 b4h g3 f2v g2 d6 g1 d5 b3v e6v f1 d4 e1 d3 c2v c3h d1 d2 d1h e2 e1v e3 c1 f3 b1 f2 b2 f1"},
}

// TestQuoridorWallRaces is a tool, not a test: with
// TABULEIRO_QUORIDOR_RACES=N it replays each game of wallRaceLosses to 10
// plies before the expert's last ply, lets the expert (and, with
// TABULEIRO_QUORIDOR_LAB_EXPERT=v, the lab's variant v beside it, such as
// threat for the wall-gain credit) choose there with 300,000 positions, and
// searches the position after each choice and after the ply the game went
// on with N positions deep (the expert's search);
// TABULEIRO_QUORIDOR_RACES_BACK=k starts k plies (even) before the
// expert's last ply instead of 10. A score of the
// opponent's forced win there (±search.Win) or a decided race (beyond
// ±qRaceWon/2) is printed as such.
func TestQuoridorWallRaces(t *testing.T) {
	deep := envInt("TABULEIRO_QUORIDOR_RACES", 0)
	if deep <= 0 {
		t.Skip("a tool: set TABULEIRO_QUORIDOR_RACES to the deep search's positions")
	}
	adapters := []struct {
		name string
		g    qGame
	}{{"expert", expertQGame()}}
	if v := os.Getenv("TABULEIRO_QUORIDOR_LAB_EXPERT"); v != "" {
		g, ok := labExpert(v)
		if !ok {
			t.Fatalf("no expert variant %q", v)
		}
		adapters = append(adapters, struct {
			name string
			g    qGame
		}{v, g})
	}
	judge := func(p quoridor.Position) string {
		r := search.Iterative[qState, quoridor.Move](t.Context(), expertQGame(), newQState(p),
			search.Limits{Nodes: int64(deep), TableBits: 20, CheckEvery: 64, Refinements: expertRefinements})
		s := -r.Score // for the side that chose
		switch {
		case s <= -search.WinBound:
			return fmt.Sprintf("forced loss (%d, depth %d)", s, r.Depth)
		case s >= search.WinBound:
			return fmt.Sprintf("forced win (%d, depth %d)", s, r.Depth)
		case s <= -qRaceWon/2:
			return fmt.Sprintf("race lost (%+d, depth %d)", s, r.Depth)
		}
		return fmt.Sprintf("%+d, depth %d", s, r.Depth)
	}
	for i, game := range wallRaceLosses {
		plies := splitPlies(game.plies)
		ours := 0
		if !game.white {
			ours = 1
		}
		last := len(plies) - 1
		if last%2 != ours {
			last--
		}
		back := envInt("TABULEIRO_QUORIDOR_RACES_BACK", 10)
		at := max(last-back, ours)
		p, err := quoridor.NewPosition("standard", "")
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range plies[:at] {
			m, err := quoridor.ParseMove(s)
			if err != nil {
				t.Fatal(err)
			}
			if p, err = p.PlayMove(m); err != nil {
				t.Fatalf("game %d: %s: %v", i+1, s, err)
			}
		}
		st := newQState(p)
		me := sideOfSeat(p.ToMove())
		fmt.Printf("game %d, ply %d, paths %d-%d, walls %d-%d:\n", i+1, at+1, st.dist(me), st.dist(1-me), p.WallsLeft(p.ToMove()), p.WallsLeft(p.ToMove().Other()))
		old, _ := quoridor.ParseMove(plies[at])
		after, _ := p.PlayMove(old)
		fmt.Printf("  played %-5s %s\n", old, judge(after))
		for _, a := range adapters {
			r := search.Iterative[qState, quoridor.Move](t.Context(), a.g, st,
				search.Limits{Nodes: 300000, TableBits: 18, CheckEvery: 64, Refinements: expertRefinements})
			after, err := p.PlayMove(r.Move)
			if err != nil {
				t.Fatal(err)
			}
			fmt.Printf("  %-8s %-5s (its score %+d) %s\n", a.name, r.Move, r.Score, judge(after))
		}
	}
}
