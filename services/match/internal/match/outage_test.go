package match_test

import (
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// Time while no instance of the service was alive is not charged: a 40 s
// outage during a 30 s clock gives the player to move back every second
// of it (the case), moves the reconnection windows on, and is
// credited once however many instances start.
func TestOutageNotCharged(t *testing.T) {
	e := newEnv(t, 2, redisstore.Options{}, match.Config{ReconnectWindow: 20 * time.Second})
	svc := e.svcs[0]
	ctx := t.Context()
	st := e.create(svc, &match.TimeControl{BaseMS: 30_000})
	for _, seat := range []engine.Seat{engine.First, engine.Second} {
		if _, err := svc.Join(ctx, st.ID, seat); err != nil {
			t.Fatal(err)
		}
	}
	e.play(svc, st.ID)
	e.play(svc, st.ID) // the first seat's clock runs from here
	ep, err := svc.Join(ctx, st.ID, engine.Second)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Leave(ctx, st.ID, engine.Second, ep); err != nil { // the second seat's window runs
		t.Fatal(err)
	}
	before, _, _ := svc.Get(ctx, st.ID)
	mover := before.ToMove
	e.clock.Advance(2 * time.Second)
	if _, err := e.store.MarkAlive(ctx, e.clock.Now().UnixMilli()); err != nil { // the last sign of life
		t.Fatal(err)
	}
	e.clock.Advance(40 * time.Second) // every instance down
	for _, s := range e.svcs {        // both come back
		if err := s.CreditOutage(ctx); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range e.svcs {
		s.Sweep(ctx)
	}
	got, _, err := svc.Get(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != match.StatusInProgress {
		t.Fatalf("after the outage: %v %+v, want the game going on", got.Status, got.Outcome)
	}
	now := e.clock.Now().UnixMilli()
	if rem := got.ClocksAt(now).Remaining[mover.Index()]; rem != 28_000 {
		t.Fatalf("the mover has %d ms, want 28000 (30 s less the 2 s before the outage)", rem)
	}
	if d := got.Seat(engine.Second).ReconnectDeadline - now; d != 18_000 {
		t.Fatalf("reconnection window left %d ms, want 18000", d)
	}
	// The clock runs again from the restart: the flag falls 28 s later.
	e.clock.Advance(28*time.Second - time.Millisecond)
	svc.Sweep(ctx)
	if g, _, _ := svc.Get(ctx, st.ID); g.Status == match.StatusFinished && g.Outcome.Reason == engine.ReasonTime {
		t.Fatalf("flag before the credited time ran out")
	}
	// Without an outage (marks 1 s apart) nothing is credited.
	e.clock.Advance(time.Second)
	if err := svc.CreditOutage(ctx); err != nil {
		t.Fatal(err)
	}
	g, _, _ := svc.Get(ctx, st.ID)
	if g.Credited != got.Credited {
		t.Fatalf("credited again without an outage")
	}
}
