package match_test

import (
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// A seat that never joins is treated like one that left, with no client
// message at all: its window runs from creation, restarts at the first
// ply, and when it closes the match ends — aborted when that seat never
// played, a loss by abandonment when it did — by the sweeper alone.
func TestNeverJoinedSeatEndsTheMatch(t *testing.T) {
	cfg := match.Config{ReconnectWindow: 60 * time.Second, FirstPlyTimeout: 30 * time.Second}
	e := newEnv(t, 1, redisstore.Options{}, cfg)
	svc := e.svcs[0]
	ctx := t.Context()

	// The first seat plays (through the service, as the unary RPC does);
	// the second never opens a stream.
	st := e.create(svc, &match.TimeControl{BaseMS: 600_000})
	if _, err := svc.Join(ctx, st.ID, st.ToMove); err != nil {
		t.Fatal(err)
	}
	if d := st.Seat(st.ToMove.Other()).ReconnectDeadline; d != st.CreatedAt+60_000 {
		t.Fatalf("never-joined deadline at creation %d, want creation + 60 s", d-st.CreatedAt)
	}
	e.clock.Advance(10 * time.Second)
	first := e.play(svc, st.ID)
	got, _, _ := svc.Get(ctx, st.ID)
	if d := got.Seat(st.ToMove.Other()).ReconnectDeadline; d != first.At+60_000 {
		t.Fatalf("never-joined deadline after the first ply %d, want the ply + 60 s", d-first.At)
	}
	e.clock.Advance(59 * time.Second)
	svc.Sweep(ctx)
	if got, _, _ := svc.Get(ctx, st.ID); got.Status != match.StatusInProgress {
		t.Fatalf("before the window closed: %v %v", got.Status, got.Outcome)
	}
	e.clock.Advance(time.Second)
	svc.Sweep(ctx)
	got, _, _ = svc.Get(ctx, st.ID)
	if got.Status != match.StatusFinished || got.Outcome != engine.DrawBy(engine.ReasonAborted) || got.Rated {
		t.Fatalf("never-joined seat after its window: %v %+v, want aborted", got.Status, got.Outcome)
	}

	// A seat that played but never held a stream loses by abandonment.
	st = e.create(svc, nil)
	firstSeat := st.ToMove
	if _, err := svc.Join(ctx, st.ID, firstSeat); err != nil {
		t.Fatal(err)
	}
	e.play(svc, st.ID) // the first seat's ply
	e.play(svc, st.ID) // the second seat's ply, without a stream
	e.clock.Advance(61 * time.Second)
	svc.Sweep(ctx)
	got, _, _ = svc.Get(ctx, st.ID)
	if got.Status != match.StatusFinished || got.Outcome != engine.WinFor(firstSeat, engine.ReasonAbandonment) {
		t.Fatalf("a seat that played without ever joining: %v %+v, want a win for %v by abandonment", got.Status, got.Outcome, firstSeat)
	}

	// A seat that joins in time keeps the match alive.
	st = e.create(svc, nil)
	e.play(svc, st.ID)
	for _, seat := range []engine.Seat{engine.First, engine.Second} {
		if _, err := svc.Join(ctx, st.ID, seat); err != nil {
			t.Fatal(err)
		}
	}
	e.clock.Advance(10 * time.Minute)
	svc.Sweep(ctx)
	if got, _, _ := svc.Get(ctx, st.ID); got.Status != match.StatusInProgress {
		t.Fatalf("both seats joined: %v %+v, want in progress", got.Status, got.Outcome)
	}
}
