package match_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// With UntimedBotWait, a match against a bot without a clock waits that
// long for its player — to play the first ply, and to come back after a
// closed tab — and so does an untimed match of two people at one device
// (OneDevice: nobody waits on anyone else) and a one-player training
// match, while a clocked bot match and
// a match between two people keep the usual first-ply timeout and
// reconnection window.
func TestUntimedBotMatchWaits(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	clock := testenv.NewClock()
	// The service is not Run: nobody asks the bot (the human moves first).
	svc := match.NewService(match.Deps{Store: redisstore.New(rdb, redisstore.Options{Prefix: prefix}), Rules: match.Registry{},
		Bot: &refusingBot{}, Now: clock.Now}, match.Config{UntimedBotWait: 30 * 24 * time.Hour})
	ctx := t.Context()
	createAt := func(bot, oneDevice bool, clock *match.TimeControl) *match.State {
		t.Helper()
		seats := []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {PlayerID: "bob", DisplayName: "Bob"}}
		if bot {
			seats[1] = match.Participant{DisplayName: "Bot", BotLevel: 1}
		}
		st, err := svc.Create(ctx, match.CreateParams{RequestID: fmt.Sprintf("u-%d", time.Now().UnixNano()),
			Game: engine.Quoridor, Variant: "standard", Seats: seats, Clock: clock, OneDevice: oneDevice})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	create := func(bot bool, clock *match.TimeControl) *match.State { return createAt(bot, false, clock) }
	status := func(id string) (match.Status, engine.Outcome) {
		t.Helper()
		st, _, err := svc.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return st.Status, st.Outcome
	}
	untimed := create(true, nil) // never played
	left := create(true, nil)    // played, then the tab closed
	clocked := create(true, &match.TimeControl{BaseMS: 300_000})
	people := create(false, nil)
	oneDevice := createAt(false, true, nil)
	// Two people at one device with a clock: the usual windows, as a clocked bot match.
	oneDeviceClocked := createAt(false, true, &match.TimeControl{BaseMS: 300_000})
	// Training alone (a one-player variant, never with a clock, C2): nobody waits on its player either.
	training, err := svc.Create(ctx, match.CreateParams{RequestID: "u-training", Game: engine.Corners, Variant: "training",
		Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Create(ctx, match.CreateParams{RequestID: "u-rated", Game: engine.Quoridor, Variant: "standard", Rated: true, OneDevice: true,
		Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {PlayerID: "bob", DisplayName: "Bob"}}}); !errors.Is(err, match.ErrInvalid) {
		t.Errorf("a rated one-device match: %v, want ErrInvalid", err)
	}
	if _, err := svc.Join(ctx, left.ID, engine.First); err != nil {
		t.Fatal(err)
	}
	if _, _, err := svc.SubmitPly(ctx, left.ID, engine.First, 1, "e2"); err != nil {
		t.Fatal(err)
	}
	lst, _, _ := svc.Get(ctx, left.ID)
	if err := svc.Leave(ctx, left.ID, engine.First, lst.Seat(engine.First).Epoch); err != nil {
		t.Fatal(err)
	}
	clock.Advance(24 * time.Hour)
	svc.Sweep(ctx)
	for _, id := range []string{untimed.ID, left.ID, oneDevice.ID, training.ID} {
		if st, o := status(id); st == match.StatusFinished {
			t.Errorf("untimed bot or one-device match %s ended after a day: %+v", id, o)
		}
	}
	for _, id := range []string{clocked.ID, people.ID, oneDeviceClocked.ID} {
		if st, o := status(id); st != match.StatusFinished || o.Reason != engine.ReasonAborted {
			t.Errorf("match %s after a day without a first ply: %v %+v, want aborted", id, st, o)
		}
	}
	clock.Advance(30 * 24 * time.Hour)
	svc.Sweep(ctx)
	for _, id := range []string{untimed.ID, left.ID, oneDevice.ID, training.ID} {
		if st, _ := status(id); st != match.StatusFinished {
			t.Errorf("untimed bot match %s still %v after 31 days", id, st)
		}
	}
}
