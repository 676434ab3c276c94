package matchserver_test

import (
	"testing"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
)

// TestSnapshotBeforeRejections: a seat that joins a finished match and
// sends plies at once gets the snapshot first, then any rejection; never
// a rejection of a match it has not yet been shown.
func TestSnapshotBeforeRejections(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR})
	if _, err := c.client(0).Resign(c.as(t.Context(), "alice"), &matchv1.ResignRequest{MatchId: id}); err != nil {
		t.Fatal(err)
	}
	for range 5 {
		bob := c.play(0, "bob", id, 0)
		for range 10 {
			bob.submit(1, "e8")
		}
		if first := bob.next().(*matchv1.PlayResponse); first.GetSnapshot() == nil {
			t.Fatalf("first message %v, want the snapshot", first)
		}
		bob.cancel()
	}
}
