package matchserver_test

import (
	"errors"
	"io"
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
			// The server may end the stream of a finished match before the
			// tenth ply goes out: Send then says io.EOF, and what the
			// server sent is still read below.
			err := bob.send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: 1, Notation: "e8"}}})
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if first := bob.next().(*matchv1.PlayResponse); first.GetSnapshot() == nil {
			t.Fatalf("first message %v, want the snapshot", first)
		}
		bob.cancel()
	}
}
