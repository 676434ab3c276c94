package matchserver_test

import (
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/matchserver"
)

// A player's unary calls are limited across instances: past the burst (refilled once an hour here, so that
// nothing refills during the test) every call of that player, on any
// instance, is RESOURCE_EXHAUSTED with a reason and a retry delay, while
// another player and the lobby's service credential go on.
func TestPerPlayerCallRate(t *testing.T) {
	t.Parallel()
	c := newClusterWith(t, 2, match.Config{}, nil, -1, func(sc *matchserver.Config) {
		sc.Limits.Calls = ratelimit.Rule{What: "match calls", Rate: 1, Burst: 5, Period: time.Hour}
	})
	id := c.create(quoridor(nil))
	alice := c.as(t.Context(), "alice")
	for i := range 5 {
		if _, err := c.client(i%2).GetMatch(alice, &matchv1.GetMatchRequest{MatchId: id}); err != nil {
			t.Fatalf("call %d: %v", i+1, err)
		}
	}
	refused := func(what string, err error) {
		t.Helper()
		if status.Code(err) != codes.ResourceExhausted {
			t.Fatalf("%s over the rate: %v, want ResourceExhausted", what, err)
		}
		if msg := status.Convert(err).Message(); !strings.Contains(msg, "too many match calls") || !strings.Contains(msg, "at most 5 at once") {
			t.Errorf("%s: reason %q", what, msg)
		}
		if d, ok := ratelimit.RetryDelay(err); !ok || d <= 0 {
			t.Errorf("%s: retry delay %v (%v)", what, d, ok)
		}
	}
	for i := range 2 {
		_, err := c.client(i).GetMatch(alice, &matchv1.GetMatchRequest{MatchId: id})
		refused("GetMatch", err)
		_, err = c.client(i).SubmitPly(alice, &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: 1, Notation: "e2"})
		refused("SubmitPly", err)
		_, err = c.client(i).AnswerProbe(alice, &matchv1.AnswerProbeRequest{MatchId: id, Id: 1})
		refused("AnswerProbe", err)
		_, err = c.client(i).OfferDraw(alice, &matchv1.OfferDrawRequest{MatchId: id})
		refused("OfferDraw", err)
		_, err = c.client(i).ListLegalPlies(alice, &matchv1.ListLegalPliesRequest{MatchId: id})
		refused("ListLegalPlies", err)
	}
	// bob is not affected: his calls are served.
	bob := c.as(t.Context(), "bob")
	if _, err := c.client(1).GetMatch(bob, &matchv1.GetMatchRequest{MatchId: id}); err != nil {
		t.Fatalf("another player: %v", err)
	}
	if _, err := c.client(0).SubmitPly(bob, &matchv1.SubmitPlyRequest{MatchId: id, PlyNumber: 1, Notation: "e2"}); status.Code(err) != codes.PermissionDenied {
		t.Fatalf("another player's ply out of turn: %v, want PermissionDenied (not limited)", err)
	}
	// Streams are capped by their number, not by this rate.
	a := c.play(0, "alice", id, 0)
	a.until("snapshot", func(m any) bool { return snapshot(m) != nil })
	// Nor is the lobby (a service credential).
	c.create(quoridor(nil))
}

// A Play stream whose client floods it (pings here, which cost the server
// no Redis call, and stale plies) is ended with RESOURCE_EXHAUSTED once
// past its burst, refilled once an hour here; the rate is per stream, in
// memory. Plies accepted as the match's next do not count: a game of more
// plies than the burst is played out on streams with that burst.
func TestPlayStreamMessageRate(t *testing.T) {
	t.Parallel()
	c := newClusterWith(t, 1, match.Config{}, nil, -1, func(sc *matchserver.Config) {
		sc.Limits.PlayMessages = ratelimit.Rule{What: "messages on this Play stream", Rate: 1, Burst: 10, Period: time.Hour}
	})
	id := c.create(quoridor(nil))
	alice, bob := c.play(0, "alice", id, 0), c.play(0, "bob", id, 0)
	for _, s := range []*stream{alice, bob} {
		s.until("snapshot", func(m any) bool { return snapshot(m) != nil })
	}
	moves := [2][2]string{{"e2", "e1"}, {"e8", "e9"}}
	const plies = 40 // 20 a seat, twice the burst
	for n := int32(1); n <= plies; n++ {
		s := alice
		if n%2 == 0 {
			s = bob
		}
		s.submit(n, moves[(n-1)%2][((n-1)/2)%2])
		bob.until("ply", hasPly(n))
		alice.until("ply", hasPly(n))
	}
	// A ply ahead of the game is refused in-band and counts; pings count.
	alice.submit(plies+3, "e2")
	alice.until("ply ahead refused", func(m any) bool { return m.(*matchv1.PlayResponse).GetPlyRejected() != nil })
	var sendErr error
	for i := uint64(0); i < 10_000 && sendErr == nil; i++ {
		sendErr = alice.send(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Ping{Ping: &matchv1.Ping{Nonce: i}}})
	}
	if sendErr != nil && !errors.Is(sendErr, io.EOF) {
		t.Fatalf("send: %v", sendErr)
	}
	pongs := 0
	for range alice.msgs {
		if pongs++; pongs > 9 {
			t.Fatalf("%d pongs; the burst of 10 had one refused ply already", pongs)
		}
	}
	err := <-alice.done
	if status.Code(err) != codes.ResourceExhausted {
		t.Fatalf("flooded stream ended with %v, want ResourceExhausted", err)
	}
	if msg := status.Convert(err).Message(); !strings.Contains(msg, "too many messages on this Play stream") {
		t.Errorf("reason %q", msg)
	}
	// The limit ends the stream, not the seat: alice plays on on a new
	// stream, bob's stream goes on.
	again := c.play(0, "alice", id, 0)
	again.until("snapshot", func(m any) bool { return snapshot(m) != nil })
	again.submit(plies+1, moves[0][(plies/2)%2])
	bob.until("ply", hasPly(plies+1))
}
