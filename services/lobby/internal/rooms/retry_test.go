package rooms

import (
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
	platformtestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// A room's scripts run twice apply once and answer as the first run did:
// the host's last free slot is not counted against the new room, the seat
// claimed is not taken for a repeated join (which would leave the room
// starting, its match never created), the second rematch offer still
// starts the rematch, and a host's leave still closes the room.
func TestScriptsRunTwiceApplyOnce(t *testing.T) {
	t.Parallel()
	_, prefix := testenv.Redis(t)
	rdb := platformtestenv.OpenRedis(t, "")
	h := &platformtestenv.ScriptsTwice{}
	rdb.AddHook(h)
	m := &testenv.Matches{}
	s := New(rdb, testenv.Variants, m, Config{Prefix: prefix, Argon2: cheapArgon2, MaxOpenPerHost: 1, LiveMatches: m.LiveMatches})
	ctx := t.Context()
	spec := Spec{Game: engine.Quoridor, Variant: "standard"}

	r, err := s.Create(ctx, ana, spec)
	if err != nil {
		t.Fatalf("create with one free slot: %v", err)
	}
	r, err = s.Join(ctx, bo, Target{RoomID: r.ID}, "", "192.0.2.1")
	if err != nil || r.Status != Started || r.MatchID == "" {
		t.Fatalf("join: %+v, %v; want the room started with its match", r, err)
	}
	if m.Calls() != 1 {
		t.Errorf("CreateMatch called %d times, want 1", m.Calls())
	}
	m.End(r.MatchID)
	if got, err := s.OfferRematch(ctx, bo.ID, r.MatchID); err != nil || got.Status != RematchOffered {
		t.Fatalf("first offer: %+v, %v", got, err)
	}
	got, err := s.OfferRematch(ctx, ana.ID, r.MatchID)
	if err != nil || got.Status != RematchStarted || got.NewMatchID == "" {
		t.Fatalf("second offer: %+v, %v; want the rematch started", got, err)
	}

	other, err := s.Create(ctx, ana, spec)
	if err != nil {
		t.Fatalf("create after the first room started: %v", err)
	}
	if err := s.Leave(ctx, ana.ID, other.ID); err != nil {
		t.Fatalf("host leaves: %v", err)
	}
	if got, err := s.Get(ctx, other.ID); err != nil || got.Status != Closed {
		t.Fatalf("after the leave: %+v, %v; want closed", got, err)
	}
	if err := s.Leave(ctx, ana.ID, other.ID); err == nil || !strings.Contains(err.Error(), "already closed") {
		t.Fatalf("a second leave: %v, want already closed", err)
	}
	if h.Reruns() == 0 {
		t.Fatal("no script ran twice")
	}
}
