package matchserver_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc/codes"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/services/match/internal/match"
)

func quoridor(tc *gamev1.TimeControl) *matchv1.CreateMatchRequest {
	return &matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, TimeControl: tc}
}

func plyNumber(m any) int32 { return event(m).GetPlyPlayed().GetPly().GetNumber() }

// hasPly holds for the event of ply n, or for a snapshot that already
// holds it (a stream whose join was served after the ply).
func hasPly(n int32) func(any) bool {
	return func(m any) bool { return plyNumber(m) == n || int32(len(snapshot(m).GetPlies())) >= n }
}

func TestReconnectToAnotherInstanceWithReplay(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 2, match.Config{}, nil)
	id := c.create(quoridor(nil))
	alice, bob := c.play(0, "alice", id, 0), c.play(0, "bob", id, 0)
	alice.submit(1, "e2")
	last := event(alice.until("ply 1", func(m any) bool { return plyNumber(m) == 1 })).GetSeq()
	bob.until("ply 1", hasPly(1))
	alice.cancel() // alice's connection drops
	bob.until("alice dropped", func(m any) bool { return event(m).GetPlayerDisconnected() != nil })
	bob.submit(2, "e8")
	bob.until("ply 2", hasPly(2))

	// Alice rejoins on the other instance with the last seq she saw: the
	// missed events come as events (no snapshot), then live ones.
	alice2 := c.play(1, "alice", id, last)
	first := alice2.next()
	if snapshot(first) != nil || event(first).GetSeq() != last+1 {
		t.Fatalf("first message after rejoin = %v, want event %d", first, last+1)
	}
	alice2.until("missed ply 2", hasPly(2))
	alice2.until("own reconnection", func(m any) bool { return event(m).GetPlayerReconnected() != nil })
	alice2.submit(3, "e3")
	bob.until("ply 3 from the other instance", hasPly(3))
	seqs := []int64{}
	for _, m := range alice2.all {
		seqs = append(seqs, event(m).GetSeq())
	}
	for i := 1; i < len(seqs); i++ {
		if seqs[i] != seqs[i-1]+1 {
			t.Fatalf("seqs after rejoin %v: not consecutive", seqs)
		}
	}
}

func TestRefusedPliesKeepTheStreamOpen(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	id := c.create(quoridor(nil))
	alice, bob := c.play(0, "alice", id, 0), c.play(0, "bob", id, 0)
	alice.submit(1, "e2")
	alice.until("ply 1", hasPly(1))
	rejected := func(s *stream) *matchv1.PlyRejected {
		return s.until("rejection", func(m any) bool { return m.(*matchv1.PlayResponse).GetPlyRejected() != nil }).(*matchv1.PlayResponse).GetPlyRejected()
	}
	tests := []struct {
		name     string
		s        *stream
		n        int32
		notation string
		code     codes.Code
		rule     string
	}{
		{"stale", bob, 1, "e8", codes.FailedPrecondition, ""},
		{"out of turn (ahead)", alice, 3, "e3", codes.FailedPrecondition, ""},
		{"other seat's ply", alice, 2, "e3", codes.PermissionDenied, ""},
		{"does not parse", bob, 2, "z0", codes.InvalidArgument, ""},
		{"illegal", bob, 2, "e6", codes.FailedPrecondition, "Q2.1"},
	}
	for _, tt := range tests {
		tt.s.submit(tt.n, tt.notation)
		r := rejected(tt.s)
		if codes.Code(r.GetCode()) != tt.code || r.GetCurrentPlyNumber() != 2 || (tt.rule != "" && r.GetRule() != tt.rule) {
			t.Errorf("%s: rejected %v, want code %v current 2 rule %q", tt.name, r, tt.code, tt.rule)
		}
	}
	// A duplicate of an accepted ply gets the same event again.
	alice.submit(1, "e2")
	dup := alice.until("duplicate", func(m any) bool { return plyNumber(m) == 1 })
	if event(dup).GetSeq() == 0 {
		t.Fatal("duplicate without its seq")
	}
	// The streams are still open: a ping gets a pong, a ply is played.
	bob.act(&matchv1.PlayRequest{Action: &matchv1.PlayRequest_Ping{Ping: &matchv1.Ping{Nonce: 7}}})
	bob.until("pong", func(m any) bool { return m.(*matchv1.PlayResponse).GetPong().GetNonce() == 7 })
	bob.submit(2, "e8")
	alice.until("ply 2", hasPly(2))
}

func TestResignAndDrawActions(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 1, match.Config{}, nil)
	corners := func() string {
		return c.create(&matchv1.CreateMatchRequest{Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3"})
	}
	act := func(a any) *matchv1.PlayRequest {
		switch a.(type) {
		case *matchv1.OfferDraw:
			return &matchv1.PlayRequest{Action: &matchv1.PlayRequest_OfferDraw{OfferDraw: &matchv1.OfferDraw{}}}
		case *matchv1.AcceptDraw:
			return &matchv1.PlayRequest{Action: &matchv1.PlayRequest_AcceptDraw{AcceptDraw: &matchv1.AcceptDraw{}}}
		case *matchv1.DeclineDraw:
			return &matchv1.PlayRequest{Action: &matchv1.PlayRequest_DeclineDraw{DeclineDraw: &matchv1.DeclineDraw{}}}
		}
		return &matchv1.PlayRequest{Action: &matchv1.PlayRequest_Resign{Resign: &matchv1.Resign{}}}
	}
	// Declined, then accepted.
	id := corners()
	alice, bob := c.play(0, "alice", id, 0), c.play(0, "bob", id, 0)
	bob.act(act(&matchv1.AcceptDraw{}))
	r := bob.until("rejection", func(m any) bool { return m.(*matchv1.PlayResponse).GetActionRejected() != nil })
	if codes.Code(r.(*matchv1.PlayResponse).GetActionRejected().GetCode()) != codes.FailedPrecondition {
		t.Fatalf("accept without offer: %v", r)
	}
	alice.act(act(&matchv1.OfferDraw{}))
	bob.until("offer", func(m any) bool { return event(m).GetDrawOffered() != nil })
	bob.act(act(&matchv1.DeclineDraw{}))
	alice.until("declined", func(m any) bool { return event(m).GetDrawDeclined() != nil })
	bob.act(act(&matchv1.OfferDraw{}))
	alice.until("offer", func(m any) bool { return event(m).GetDrawOffered() != nil })
	alice.act(act(&matchv1.AcceptDraw{}))
	// Agreed before each side's first ply: aborted (the agreement itself
	// after a ply each is match's TestResignAndDraws).
	if o := bob.ended().GetOutcome(); o.GetResult() != gamev1.Result_RESULT_DRAW || o.GetReason() != gamev1.Reason_REASON_ABORTED {
		t.Fatalf("outcome %v, want aborted (a draw agreed before any ply)", o)
	}
	// Resignation.
	id = corners()
	alice, bob = c.play(0, "alice", id, 0), c.play(0, "bob", id, 0)
	alice.act(act(&matchv1.Resign{}))
	if o := bob.ended().GetOutcome(); o.GetReason() != gamev1.Reason_REASON_ABORTED {
		t.Fatalf("outcome %v, want aborted (resigned before any ply)", o)
	}
	// A draw offer in a variant without draws is refused.
	id = c.create(quoridor(nil))
	alice = c.play(0, "alice", id, 0)
	alice.act(act(&matchv1.OfferDraw{}))
	alice.until("rejection", func(m any) bool { return m.(*matchv1.PlayResponse).GetActionRejected() != nil })
}

// TestFlagAbandonAbortWithoutMessages: the deadlines fire with nobody
// sending anything, seen by the opponent or a spectator; the flag's
// lateness is measured.
func TestFlagAbandonAbortWithoutMessages(t *testing.T) {
	t.Parallel()
	// The reconnect window is long enough for both streams to join on a
	// loaded machine (with 300 ms, a game was once aborted before they had).
	c := newCluster(t, 2, match.Config{ReconnectWindow: 2 * time.Second, SweepInterval: 20 * time.Millisecond}, nil)
	quick := newCluster(t, 1, match.Config{FirstPlyTimeout: 300 * time.Millisecond, SweepInterval: 20 * time.Millisecond}, nil)

	// Abort: no first ply.
	id := quick.create(quoridor(nil))
	if o := quick.watch(0, id).ended().GetOutcome(); o.GetReason() != gamev1.Reason_REASON_ABORTED {
		t.Fatalf("outcome %v, want aborted", o)
	}
	// Abandonment: alice drops on her turn and never comes back.
	id = c.create(quoridor(nil))
	alice, bob := c.play(0, "alice", id, 0), c.play(1, "bob", id, 0)
	alice.submit(1, "e2")
	bob.until("ply 1", hasPly(1))
	bob.submit(2, "e8")
	alice.until("ply 2", hasPly(2))
	alice.cancel()
	if o := bob.ended().GetOutcome(); o.GetWinner() != gamev1.Seat_SEAT_SECOND || o.GetReason() != gamev1.Reason_REASON_ABANDONMENT {
		t.Fatalf("outcome %v, want second wins by abandonment", o)
	}

	// Flag fall in 20 games at once, nobody sending after ply 2: on a
	// cluster with the default reconnection window, since the 300 ms one
	// above aborted a game whose second player's stream took longer than
	// that to open on a loaded machine (the flag needs neither).
	c = newCluster(t, 2, match.Config{SweepInterval: 20 * time.Millisecond}, nil)
	const games = 20
	var (
		mu       sync.Mutex
		lateness []time.Duration // flag → the end committed (detection)
		delivery []time.Duration // flag → the opponent's client has it
		wg       sync.WaitGroup
		failed   atomic.Value
	)
	for g := range games {
		// A pair of players per game: one player's streams are capped (16).
		// 3 s: the second player's clock runs for ply 2, which a loaded
		// machine once took 1.3 s to send (the game was aborted, not
		// flagged, with 1 s).
		req := quoridor(&gamev1.TimeControl{BaseMs: 3000})
		a, b := fmt.Sprintf("alice%d", g), fmt.Sprintf("bob%d", g)
		req.First, req.Second = playerSeat(a), playerSeat(b)
		id := c.create(req)
		alice, bob := c.play(0, a, id, 0), c.play(1, b, id, 0)
		alice.submit(1, "e2")
		bob.until("ply 1", hasPly(1))
		bob.submit(2, "e8")
		ply2 := event(alice.until("ply 2", func(m any) bool { return plyNumber(m) == 2 })).GetPlyPlayed()
		flag := ply2.GetClocks().GetAsOf().AsTime().Add(time.Duration(ply2.GetClocks().GetFirstRemainingMs()) * time.Millisecond)
		wg.Go(func() {
			for m := range alice.msgs {
				if end := event(m).GetGameEnded(); end != nil {
					if end.GetOutcome().GetReason() != gamev1.Reason_REASON_TIME || end.GetOutcome().GetWinner() != gamev1.Seat_SEAT_SECOND {
						failed.Store(errors.New(end.GetOutcome().String()))
					}
					mu.Lock()
					lateness = append(lateness, event(m).GetAt().AsTime().Sub(flag))
					delivery = append(delivery, time.Since(flag))
					mu.Unlock()
					return
				}
			}
		})
	}
	wg.Wait()
	if err := failed.Load(); err != nil {
		t.Fatalf("flag outcome %v", err)
	}
	slices.Sort(lateness)
	slices.Sort(delivery)
	if len(lateness) != games {
		t.Fatalf("%d of %d games flagged", len(lateness), games)
	}
	t.Logf("flag fall over %d games: detected late by min %v p50 %v max %v; at the client after p50 %v max %v",
		games, lateness[0], lateness[games/2], lateness[games-1], delivery[games/2], delivery[games-1])
	// The target (within 100 ms) is a figure to report, not a timing to
	// assert on a shared machine (a single-threaded embedded Redis shared
	// with the lobby's suites has delayed one flag by 2.4 s): only an early
	// flag fails. A sweeper that never ran would flag nothing, and the
	// test would fail at its deadline.
	if lateness[0] < 0 {
		t.Errorf("a flag fell %v before the clock ran out", -lateness[0])
	}
}

// TestSweeperWokenByTheDeadlinesOfEitherInstance: a sweeper that would
// wait an hour (SweepMaxWait), with no other deadline or lease nearer
// than that, still flags a game: the commit that set the flag, on
// whichever instance, woke it (its own Run loop, or the other instance's
// through Redis). Without the wake-ups the flags would wait the hour and
// the test fail at its deadline.
func TestSweeperWokenByTheDeadlinesOfEitherInstance(t *testing.T) {
	t.Parallel()
	c := newCluster(t, 2, match.Config{SweepMaxWait: time.Hour, LeaseTTL: time.Hour, LeaseRenew: time.Hour,
		ReconnectWindow: time.Hour, FirstPlyTimeout: time.Hour}, nil)
	// The flag's deadline is written by the last ply's commit: on
	// instance 1 in the first game, on instance 0 in the second; one of
	// them does not sweep.
	for g, last := range []int{1, 0} {
		req := quoridor(&gamev1.TimeControl{BaseMs: 1000})
		a, b := fmt.Sprintf("alice%d", g), fmt.Sprintf("bob%d", g)
		req.First, req.Second = playerSeat(a), playerSeat(b)
		id := c.create(req)
		alice, bob := c.play(1-last, a, id, 0), c.play(last, b, id, 0)
		alice.submit(1, "e2")
		bob.until("ply 1", hasPly(1))
		bob.submit(2, "e8")
		if o := alice.ended().GetOutcome(); o.GetReason() != gamev1.Reason_REASON_TIME || o.GetWinner() != gamev1.Seat_SEAT_SECOND {
			t.Fatalf("game %d: outcome %v, want second wins on time", g, o)
		}
	}
}

// flakyBot fails, then answers for a stale ply, then plays the first
// legal ply.
type flakyBot struct{ calls atomic.Int64 }

func (b *flakyBot) SelectPly(ctx context.Context, req match.BotRequest) (match.BotAnswer, error) {
	n := b.calls.Add(1)
	switch {
	case n%3 == 1:
		return match.BotAnswer{}, errors.New("bot unavailable")
	case n%3 == 2:
		return match.BotAnswer{Notation: req.View.Legal()[0].String(), PlyNumber: req.View.Plies()}, nil
	}
	return match.BotAnswer{Notation: req.View.Legal()[0].String(), PlyNumber: req.View.Plies() + 1}, nil
}

func TestBotSeatRetriesAndDiscardsStaleAnswers(t *testing.T) {
	t.Parallel()
	bot := &flakyBot{}
	c := newCluster(t, 1, match.Config{}, bot)
	id := c.create(&matchv1.CreateMatchRequest{
		Game:  gamev1.Game_GAME_QUORIDOR,
		First: &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_BotLevel{BotLevel: gamev1.BotLevel_BOT_LEVEL_EASY}},
	})
	bob := c.play(0, "bob", id, 0)
	bob.until("bot's ply 1", hasPly(1))
	bob.submit(2, "e8")
	bob.until("bot's ply 3", hasPly(3))
	if n := bot.calls.Load(); n < 6 {
		t.Fatalf("bot asked %d times for 2 plies, want 3 each (fail, stale, good)", n)
	}
}
