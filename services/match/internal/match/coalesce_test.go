package match_test

import (
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// presenceEvents counts the stored player_disconnected and
// player_reconnected events of match id after seq.
func (e *env) presenceEvents(id string, after int64) (gone, back int) {
	e.t.Helper()
	for _, ev := range e.events(id) {
		if ev.Seq <= after {
			continue
		}
		switch ev.Kind {
		case match.EventDisconnected:
			gone++
		case match.EventReconnected:
			back++
		}
	}
	return gone, back
}

// TestJoinStormIsCoalesced: 200 joins of a seat already connected, and
// 200 leave-and-join cycles within the presence grace, store (and so
// send to the opponent) no presence event at all; a real departure is
// still announced once its grace has passed, with the reconnection window
// counted from the departure, and the return after it is announced too.
func TestJoinStormIsCoalesced(t *testing.T) {
	t.Parallel()
	const grace = 2 * time.Second
	e := newEnv(t, 2, redisstore.Options{}, match.Config{PresenceGrace: grace, ReconnectWindow: time.Minute})
	ctx := t.Context()
	a, b := e.svcs[0], e.svcs[1]
	st := e.create(a, nil)
	for _, seat := range []engine.Seat{engine.First, engine.Second} {
		if _, err := a.Join(ctx, st.ID, seat); err != nil {
			t.Fatal(err)
		}
	}
	e.play(a, st.ID)
	base, _, _ := a.Get(ctx, st.ID)
	after := base.LastSeq

	// An older stream of the seat hears that it was superseded, and only
	// that seat's stream acts on it.
	feed, _, _, err := b.Follow(ctx, st.ID, after)
	if err != nil {
		t.Fatal(err)
	}
	defer feed.Close()

	var ep int64
	for i := range 200 {
		svc := e.svcs[i%2] // a storm across both instances
		if ep, err = svc.Join(ctx, st.ID, engine.Second); err != nil {
			t.Fatal(err)
		}
	}
	notice, err := feed.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if notice.Kind != match.EventSuperseded || notice.Seq != 0 || notice.Seat != engine.Second {
		t.Fatalf("first thing followed after a second join: %+v, want a superseded notice (seq 0) for the second seat", notice)
	}
	for range 200 {
		if err := a.Leave(ctx, st.ID, engine.Second, ep); err != nil {
			t.Fatal(err)
		}
		e.clock.Advance(grace / 4)
		if ep, err = b.Join(ctx, st.ID, engine.Second); err != nil {
			t.Fatal(err)
		}
		a.Renew(ctx) // the first seat's stream stays (the clock is the test's)
		b.Renew(ctx)
		a.Sweep(ctx) // nothing is due: the seat came back within its grace
	}
	if gone, back := e.presenceEvents(st.ID, after); gone+back != 0 {
		t.Fatalf("400 joins and 200 leaves of a seat stored %d disconnections and %d reconnections, want none", gone, back)
	}
	if got, _, _ := a.Get(ctx, st.ID); got.LastSeq != after || got.Seat(engine.Second).Conn != match.Connected {
		t.Fatalf("after the storm: last seq %d (want %d), seat %+v", got.LastSeq, after, got.Seat(engine.Second))
	}

	// A real departure: announced once the grace has passed, not before.
	left := e.clock.Now().UnixMilli()
	if err := a.Leave(ctx, st.ID, engine.Second, ep); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(grace - time.Millisecond)
	a.Sweep(ctx)
	if gone, _ := e.presenceEvents(st.ID, after); gone != 0 {
		t.Fatalf("departure announced %d times before its grace passed", gone)
	}
	e.clock.Advance(time.Millisecond)
	a.Sweep(ctx)
	evs := e.events(st.ID)
	last := evs[len(evs)-1]
	if last.Kind != match.EventDisconnected || last.Seat != engine.Second || last.Deadline != left+time.Minute.Milliseconds() {
		t.Fatalf("after the grace: last event %+v, want the second seat's departure with deadline %d", last, left+time.Minute.Milliseconds())
	}
	if _, err := b.Join(ctx, st.ID, engine.Second); err != nil {
		t.Fatal(err)
	}
	if gone, back := e.presenceEvents(st.ID, after); gone != 1 || back != 1 {
		t.Fatalf("a real disconnect and reconnect: %d and %d events, want 1 and 1", gone, back)
	}
}

// TestUnannouncedDepartureStillAbandons: a seat that leaves and never
// comes back loses by abandonment when its window closes, whether or not
// the grace is longer than anything else pending.
func TestUnannouncedDepartureStillAbandons(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{PresenceGrace: 2 * time.Second, ReconnectWindow: 5 * time.Second})
	ctx := t.Context()
	svc := e.svcs[0]
	st := e.create(svc, nil)
	if _, err := svc.Join(ctx, st.ID, engine.First); err != nil {
		t.Fatal(err)
	}
	ep, err := svc.Join(ctx, st.ID, engine.Second)
	if err != nil {
		t.Fatal(err)
	}
	e.play(svc, st.ID)
	e.play(svc, st.ID) // a ply each: an abandonment before would abort
	if err := svc.Leave(ctx, st.ID, engine.Second, ep); err != nil {
		t.Fatal(err)
	}
	for range 6 {
		e.clock.Advance(time.Second)
		svc.Sweep(ctx)
	}
	got, _, _ := svc.Get(ctx, st.ID)
	if got.Status != match.StatusFinished || got.Outcome.Reason != engine.ReasonAbandonment || got.Outcome.Winner != engine.First {
		t.Fatalf("after the window: %v %+v, want the first seat to win by abandonment", got.Status, got.Outcome)
	}
	if gone, _ := e.presenceEvents(st.ID, 0); gone != 1 {
		t.Fatalf("%d departures announced, want 1", gone)
	}
}
