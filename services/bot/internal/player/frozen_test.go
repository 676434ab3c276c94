package player

import (
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
