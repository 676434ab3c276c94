package rooms

import (
	"errors"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// A room's match starts only when neither member is in another live match;
// the room stays open for someone else.
func TestJoinRefusedDuringAnotherMatch(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	m := &testenv.Matches{}
	mm := matchmaking.New(rdb, testenv.Variants, m, matchmaking.Config{Prefix: prefix})
	s := New(rdb, testenv.Variants, m, Config{Prefix: prefix, Argon2: cheapArgon2, Reserver: mm})
	ctx := t.Context()
	if err := mm.Reserve(ctx, "bot-x", bo.ID); err != nil {
		t.Fatal(err)
	}
	if err := mm.Confirm(ctx, "bot-x", "m-bot", bo.ID); err != nil {
		t.Fatal(err)
	}
	r, err := s.Create(ctx, ana, Spec{Game: engine.Quoridor, Variant: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	var busy *lobby.BusyError
	if _, err := s.Join(ctx, bo, Target{RoomID: r.ID}, "", "192.0.2.1"); !errors.As(err, &busy) || busy.PlayerID != bo.ID {
		t.Fatalf("join during a live match: %v, want BusyError", err)
	}
	got, err := s.Join(ctx, cy, Target{RoomID: r.ID}, "", "192.0.2.1")
	if err != nil || got.Status != Started {
		t.Fatalf("join by someone free: %+v, %v", got, err)
	}
	if err := mm.Reserve(ctx, "bot-y", ana.ID); !errors.Is(err, lobby.ErrPrecondition) {
		t.Fatalf("host's bot game during the room's match: %v, want ErrPrecondition", err)
	}
}

// An empty variant is the game's default: the room carries the real id
// and is listed under it.
func TestEmptyVariantIsDefault(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{})
	ctx := t.Context()
	r, err := s.Create(ctx, ana, Spec{Game: engine.Corners})
	if err != nil || r.Variant != "classic-3x3" {
		t.Fatalf("room %+v, %v; want variant classic-3x3", r, err)
	}
	page, err := s.List(ctx, engine.Corners, "classic-3x3", 10, "")
	if err != nil || len(page.Rooms) != 1 {
		t.Fatalf("listed %+v, %v", page, err)
	}
}

// A password for a public room is a mistake, not something to ignore.
func TestPasswordForPublicRoom(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{})
	ctx := t.Context()
	r, err := s.Create(ctx, ana, Spec{Game: engine.Quoridor, Variant: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	var ie *lobby.InvalidError
	if _, err := s.Join(ctx, bo, Target{RoomID: r.ID}, "secret", "192.0.2.1"); !errors.As(err, &ie) || ie.Field != "password" {
		t.Fatalf("join a public room with a password: %v, want InvalidError on password", err)
	}
	if got, err := s.Join(ctx, bo, Target{RoomID: r.ID}, "", "192.0.2.1"); err != nil || got.Status != Started {
		t.Fatalf("join without: %+v, %v", got, err)
	}
}

// Leaving says what is wrong: an empty id is invalid, a second leave finds
// the room already closed (not a match to resign).
func TestLeaveMessages(t *testing.T) {
	t.Parallel()
	s, _ := newStore(t, Config{})
	ctx := t.Context()
	var ie *lobby.InvalidError
	if err := s.Leave(ctx, ana.ID, ""); !errors.As(err, &ie) || ie.Field != "room_id" {
		t.Fatalf("leave without an id: %v, want InvalidError on room_id", err)
	}
	r, err := s.Create(ctx, ana, Spec{Game: engine.Quoridor, Variant: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Leave(ctx, ana.ID, r.ID); err != nil {
		t.Fatal(err)
	}
	err = s.Leave(ctx, ana.ID, r.ID)
	if !errors.Is(err, lobby.ErrPrecondition) || !strings.Contains(err.Error(), "already closed") || strings.Contains(err.Error(), "resign") {
		t.Fatalf("second leave: %v, want ErrPrecondition saying already closed", err)
	}
}
