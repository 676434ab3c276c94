package match_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// TestTrainingIsSolo: Corners training is one player, no clock, no rating
// (RULES.md C2). A time control is refused; a resigned or abandoned
// training game ends without a winner (aborted), never as a win for a
// second seat that does not exist.
func TestTrainingIsSolo(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{ReconnectWindow: 5 * time.Second})
	svc := e.svcs[0]
	ctx := t.Context()
	n := 0
	create := func(tc *match.TimeControl) (*match.State, error) {
		n++
		return svc.Create(ctx, match.CreateParams{
			RequestID: fmt.Sprintf("solo-%d-%d", time.Now().UnixNano(), n), Game: engine.Corners, Variant: "training",
			Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}}, Clock: tc,
		})
	}
	if _, err := create(&match.TimeControl{BaseMS: 60_000, IncrementMS: 1_000}); !errors.Is(err, match.ErrInvalid) {
		t.Fatalf("training with a clock: %v, want ErrInvalid", err)
	}
	aborted := engine.DrawBy(engine.ReasonAborted)

	st, err := create(nil)
	if err != nil {
		t.Fatal(err)
	}
	e.play(svc, st.ID)
	if err := svc.Resign(ctx, st.ID, engine.First); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := svc.Get(ctx, st.ID); got.Outcome != aborted || got.Rated {
		t.Fatalf("resigned training game: %v (rated %v), want %v", got.Outcome, got.Rated, aborted)
	}

	st, err = create(nil)
	if err != nil {
		t.Fatal(err)
	}
	e.play(svc, st.ID)
	ep, err := svc.Join(ctx, st.ID, engine.First)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Leave(ctx, st.ID, engine.First, ep); err != nil {
		t.Fatal(err)
	}
	e.clock.Advance(5 * time.Second)
	svc.Sweep(ctx)
	if got, _, _ := svc.Get(ctx, st.ID); got.Outcome != aborted {
		t.Fatalf("abandoned training game: %v, want %v", got.Outcome, aborted)
	}
}
