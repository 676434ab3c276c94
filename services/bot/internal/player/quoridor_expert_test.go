package player

import (
	"math/rand/v2"
	"testing"

	"tabuleiro.dev/pkg/engine/quoridor"
	"tabuleiro.dev/services/bot/internal/search"
)

// TestExpert1Frozen: expert-1 is the yardstick of newer experts, so its
// search must not change: to a fixed depth (no clock) on the midgame
// position it visits exactly the nodes and finds exactly the move and
// score it did when it was frozen.
func TestExpert1Frozen(t *testing.T) {
	t.Parallel()
	r := search.Iterative[qState, quoridor.Move](t.Context(), expert1QGame(), newQState(midgame(t)),
		search.Limits{Depth: 5, TableBits: 18})
	if got, want := [3]int64{r.Nodes, int64(r.Score), int64(r.Depth)}, [3]int64{130847, -50, 5}; got != want || r.Move.String() != "e5" {
		t.Errorf("expert-1 at depth 5: nodes, score, depth %v and move %s; frozen: %v and %s", got, r.Move, want, "e5")
	}
}

// TestQuoridorExpertsPlayLegally: the expert's and expert-1's searches,
// at a fixed depth (no clock), choose legal plies all along games from
// random openings: each is checked by the rules (PlayMove).
func TestQuoridorExpertsPlayLegally(t *testing.T) {
	t.Parallel()
	plies := 60
	if testing.Short() {
		plies = 24
	}
	for seed := range uint64(3) {
		rng := rand.New(rand.NewPCG(seed, 11))
		p, err := quoridor.NewPosition("standard", "")
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < plies && !p.Outcome().Over(); i++ {
			var r search.Result[quoridor.Move]
			switch {
			case i < 4:
				legal := p.LegalMoves(nil)
				r.Move = legal[rng.IntN(len(legal))]
			case i%2 == 0:
				r = search.Iterative[qState, quoridor.Move](t.Context(), expertQGame(), newQState(p),
					search.Limits{Depth: 3, TableBits: 14, Shuffle: rng, Refinements: expertRefinements})
			default:
				r = search.Iterative[qState, quoridor.Move](t.Context(), expert1QGame(), newQState(p),
					search.Limits{Depth: 3, TableBits: 14, Shuffle: rng})
			}
			next, err := p.PlayMove(r.Move)
			if err != nil {
				t.Fatalf("%s: ply %d %s: %v", p.Encode(), i+1, r.Move, err)
			}
			p = next
		}
	}
}
