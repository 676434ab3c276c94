package matchserver_test

import (
	"context"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/testenv"
)

// One player's open streams (Watch and Play together) are capped at 16
// by default: the 17th is RESOURCE_EXHAUSTED, and closing one frees a
// place. The spectator count of a match cannot be inflated past the cap
// by one player.
func TestPerPlayerStreamCap(t *testing.T) {
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard"})
	var cancels []context.CancelFunc
	for range 16 {
		ctx, cancel := context.WithCancel(c.as(t.Context(), "carol"))
		cancels = append(cancels, cancel)
		w, err := c.client(0).Watch(ctx, &matchv1.WatchRequest{MatchId: id})
		if err != nil {
			t.Fatal(err)
		}
		if m, err := w.Recv(); err != nil || m.GetSnapshot() == nil {
			t.Fatalf("watch: %v, %v", m, err)
		}
	}
	w, err := c.client(0).Watch(c.as(t.Context(), "carol"), &matchv1.WatchRequest{MatchId: id})
	if err == nil {
		_, err = w.Recv()
	}
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("17th stream: %v, want ResourceExhausted", err)
	}
	g, err := c.client(0).GetMatch(c.as(t.Context(), "alice"), &matchv1.GetMatchRequest{MatchId: id})
	if err != nil || g.GetMatch().GetSpectators() != 16 {
		t.Fatalf("spectators %d (%v), want 16", g.GetMatch().GetSpectators(), err)
	}
	// Another player is not affected; a closed stream frees a place.
	dw, err := c.client(0).Watch(c.as(t.Context(), "dave"), &matchv1.WatchRequest{MatchId: id})
	if err != nil {
		t.Fatal(err)
	}
	if m, err := dw.Recv(); err != nil || m.GetSnapshot() == nil {
		t.Fatalf("another player's watch: %v, %v", m, err)
	}
	cancels[0]()
	testenv.Eventually(t, 10*time.Second, "a place freed by a closed stream", func() bool {
		w, err := c.client(0).Watch(c.as(t.Context(), "carol"), &matchv1.WatchRequest{MatchId: id})
		if err != nil {
			return false
		}
		m, err := w.Recv()
		return err == nil && m.GetSnapshot() != nil
	})
}
