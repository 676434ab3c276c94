package matchserver_test

import (
	"errors"
	"io"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
)

// TestSamePlyToTwoInstancesThroughGRPC: a mover whose client sends the
// same ply through two instances at once (two streams, the newer one
// superseding the older) gets exactly one ply_played; each stream's answer
// is that ply (fresh or repeated), a FAILED_PRECONDITION naming the
// current ply number, or the older stream's ABORTED end.
func TestSamePlyToTwoInstancesThroughGRPC(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 2, match.Config{}, nil)
	id := c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3"})
	obs := c.watch(0, id) // a spectator counts the ply events
	obs.until("snapshot", func(m any) bool { return snapshot(m) != nil })
	const rounds = 6
	for n := int32(1); n <= rounds; n++ {
		mover := "alice"
		if n%2 == 0 {
			mover = "bob"
		}
		got, err := c.client(0).GetMatch(c.as(t.Context(), mover), &matchv1.GetMatchRequest{MatchId: id})
		if err != nil {
			t.Fatal(err)
		}
		v, err := games.DecodeView(engine.Corners, got.GetMatch().GetView().GetEncoding())
		if err != nil {
			t.Fatal(err)
		}
		ply := v.Legal()[0].String()
		x := c.play(0, mover, id, 0)
		x.until("snapshot", func(m any) bool { return snapshot(m) != nil })
		y := c.play(1, mover, id, 0)
		y.until("snapshot", func(m any) bool { return snapshot(m) != nil })
		submit := &matchv1.PlayRequest{Action: &matchv1.PlayRequest_SubmitPly{SubmitPly: &matchv1.SubmitPly{PlyNumber: n, Notation: ply}}}
		_ = x.send(submit) // fails only if y already superseded x: its end is checked below
		y.submit(n, ply)
		for si, s := range []*stream{x, y} {
			answered := false
			for !answered {
				m, ok := <-s.msgs
				if !ok {
					if err := <-s.done; si == 0 && status.Code(err) == codes.Aborted {
						answered = true // superseded by y
						continue
					} else if !errors.Is(err, io.EOF) {
						t.Fatalf("round %d stream %d ended: %v", n, si, err)
					}
				}
				r := m.(*matchv1.PlayResponse)
				if pp := r.GetEvent().GetPlyPlayed(); pp != nil && pp.GetPly().GetNumber() == n {
					if pp.GetPly().GetNotation() != ply {
						t.Fatalf("round %d: ply %s played, want %s", n, pp.GetPly().GetNotation(), ply)
					}
					answered = true
				}
				if rj := r.GetPlyRejected(); rj != nil {
					if codes.Code(rj.GetCode()) != codes.FailedPrecondition || rj.GetCurrentPlyNumber() != n+1 {
						t.Fatalf("round %d stream %d: rejection %v, want FailedPrecondition with current ply %d", n, si, rj, n+1)
					}
					answered = true
				}
			}
		}
		x.cancel()
		y.cancel()
		obs.until("ply", hasPly(n))
	}
	got, err := c.client(1).GetMatch(c.as(t.Context(), "alice"), &matchv1.GetMatchRequest{MatchId: id})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.GetMatch().GetPlies()) != rounds {
		t.Fatalf("%d plies stored, want %d", len(got.GetMatch().GetPlies()), rounds)
	}
	count := map[int32]int{}
	for _, m := range obs.all {
		if pp := event(m).GetPlyPlayed(); pp != nil {
			count[pp.GetPly().GetNumber()]++
		}
	}
	for n := int32(1); n <= rounds; n++ {
		if count[n] != 1 {
			t.Fatalf("the spectator saw ply %d %d times, want once", n, count[n])
		}
	}
}
