package rooms

import (
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/lobby/internal/lobby"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
	"tabuleiro.dev/services/lobby/internal/testenv"
)

// rematchStore is a store whose rematches check, as in production, that
// the match ended (the fake match service's LiveMatches) and keep each
// player in one live match (the matchmaker's reservations).
func rematchStore(t *testing.T) (*Store, *testenv.Matches, *matchmaking.Matchmaker) {
	t.Helper()
	rdb, prefix := testenv.Redis(t)
	m := &testenv.Matches{}
	mm := matchmaking.New(rdb, testenv.Variants, m, matchmaking.Config{Prefix: prefix, LiveMatches: m.LiveMatches})
	s := New(rdb, testenv.Variants, m, Config{Prefix: prefix, Argon2: cheapArgon2, Reserver: mm, LiveMatches: m.LiveMatches})
	return s, m, mm
}

// playedRoom starts a room match between ana (host) and bo and returns it.
func playedRoom(t *testing.T, s *Store, spec Spec) Room {
	t.Helper()
	r, err := s.Create(t.Context(), ana, spec)
	if err != nil {
		t.Fatal(err)
	}
	r, err = s.Join(t.Context(), bo, Target{RoomID: r.ID, OneDevice: spec.OneDevice}, spec.Password, "192.0.2.1")
	if err != nil || r.MatchID == "" {
		t.Fatalf("join: %+v, %v", r, err)
	}
	return r
}

// Both players offer; the second offer creates the new match with the
// same settings and the seats swapped, and that match can be rematched
// in turn (swapping back).
func TestRematchBothAcceptSeatsSwap(t *testing.T) {
	t.Parallel()
	s, m, _ := rematchStore(t)
	ctx := t.Context()
	clock := lobby.TimeControl{BaseMS: 120000, IncrementMS: 1000}
	r := playedRoom(t, s, Spec{Game: engine.Corners, Variant: "classic-3x3", Clock: clock, Rated: true, Private: true, Password: "hunter22"})
	m.End(r.MatchID)
	anaFirst := r.SeatOf(ana.ID) == engine.First

	got, err := s.OfferRematch(ctx, bo.ID, r.MatchID)
	if err != nil || got.Status != RematchOffered || !slices.Equal(got.OfferedBy, []string{bo.ID}) || got.NewMatchID != "" {
		t.Fatalf("first offer: %+v, %v", got, err)
	}
	// Offering again changes nothing.
	if again, err := s.OfferRematch(ctx, bo.ID, r.MatchID); err != nil || again.Status != RematchOffered || len(again.OfferedBy) != 1 {
		t.Fatalf("repeated offer: %+v, %v", again, err)
	}
	if n := len(m.Specs()); n != 1 {
		t.Fatalf("%d matches after one offer, want 1", n)
	}
	got, err = s.OfferRematch(ctx, ana.ID, r.MatchID)
	if err != nil || got.Status != RematchStarted || got.NewMatchID == "" {
		t.Fatalf("accepting offer: %+v, %v", got, err)
	}
	spec := m.Specs()[got.NewMatchID]
	if spec.Game != engine.Corners || spec.Variant != "classic-3x3" || spec.Clock != clock || !spec.Rated || !spec.Private {
		t.Fatalf("rematch spec %+v does not copy the room's settings", spec)
	}
	wantFirst := ana.ID
	if anaFirst {
		wantFirst = bo.ID
	}
	if spec.First.PlayerID != wantFirst {
		t.Fatalf("rematch first seat %s, want %s (seats swap)", spec.First.PlayerID, wantFirst)
	}
	if seat := got.NewSeatOf(wantFirst); seat != engine.First {
		t.Fatalf("NewSeatOf(%s) = %v, want First", wantFirst, seat)
	}
	// Both see the same started rematch.
	seen, err := s.GetRematch(ctx, bo.ID, r.MatchID)
	if err != nil || seen.NewMatchID != got.NewMatchID {
		t.Fatalf("other player's view %+v, %v", seen, err)
	}

	// The rematch's match is live: no rematch of it yet.
	if _, err := s.OfferRematch(ctx, ana.ID, got.NewMatchID); !errors.Is(err, lobby.ErrPrecondition) {
		t.Fatalf("offer during the rematch's match: %v, want ErrPrecondition", err)
	}
	m.End(got.NewMatchID)
	if _, err := s.OfferRematch(ctx, ana.ID, got.NewMatchID); err != nil {
		t.Fatal(err)
	}
	third, err := s.OfferRematch(ctx, bo.ID, got.NewMatchID)
	if err != nil || third.Status != RematchStarted {
		t.Fatalf("rematch of the rematch: %+v, %v", third, err)
	}
	if f := m.Specs()[third.NewMatchID].First.PlayerID; f == wantFirst {
		t.Fatalf("third match first seat %s: seats did not swap back", f)
	}
}

// A private room's match is, to anyone who did not play it, like a match
// that does not exist: NOT_FOUND with the same words, not "you did not
// play it" (README, Fair play: private rooms).
func TestPrivateRematchIsNotFoundToStrangers(t *testing.T) {
	t.Parallel()
	s, m, _ := rematchStore(t)
	ctx := t.Context()
	r := playedRoom(t, s, Spec{Game: engine.Quoridor, Variant: "standard", Private: true, Password: "hunter22"})
	m.End(r.MatchID)
	_, unknown := s.GetRematch(ctx, cy.ID, "m-unknown")
	for name, call := range map[string]func() error{
		"get":     func() error { _, err := s.GetRematch(ctx, cy.ID, r.MatchID); return err },
		"offer":   func() error { _, err := s.OfferRematch(ctx, cy.ID, r.MatchID); return err },
		"decline": func() error { _, err := s.DeclineRematch(ctx, cy.ID, r.MatchID); return err },
	} {
		err := call()
		if !errors.Is(err, lobby.ErrNotFound) {
			t.Errorf("%s by a stranger: %v, want ErrNotFound", name, err)
			continue
		}
		if want := strings.ReplaceAll(unknown.Error(), "m-unknown", r.MatchID); err.Error() != want {
			t.Errorf("%s by a stranger says %q, want what an unknown match says: %q", name, err, want)
		}
	}
	// The players still can.
	if got, err := s.DeclineRematch(ctx, bo.ID, r.MatchID); err != nil || got.Status != RematchDeclined {
		t.Fatalf("decline by a player: %+v, %v", got, err)
	}
}

// Bad requests change nothing and say why.
func TestRematchRefusals(t *testing.T) {
	t.Parallel()
	s, m, _ := rematchStore(t)
	ctx := t.Context()
	r := playedRoom(t, s, Spec{Game: engine.Quoridor, Variant: "standard"})

	if _, err := s.OfferRematch(ctx, ana.ID, r.MatchID); !errors.Is(err, lobby.ErrPrecondition) {
		t.Fatalf("offer before the match ended: %v, want ErrPrecondition", err)
	}
	m.End(r.MatchID)
	if _, err := s.OfferRematch(ctx, cy.ID, r.MatchID); !errors.Is(err, lobby.ErrForbidden) {
		t.Fatalf("offer by a stranger: %v, want ErrForbidden", err)
	}
	if _, err := s.DeclineRematch(ctx, cy.ID, r.MatchID); !errors.Is(err, lobby.ErrForbidden) {
		t.Fatalf("decline by a stranger: %v, want ErrForbidden", err)
	}
	if _, err := s.OfferRematch(ctx, ana.ID, "m-unknown"); !errors.Is(err, lobby.ErrNotFound) {
		t.Fatalf("offer for an unknown match: %v, want ErrNotFound", err)
	}
	if _, err := s.OfferRematch(ctx, ana.ID, ""); !errors.Is(err, lobby.ErrInvalid) {
		t.Fatalf("offer without a match id: %v, want ErrInvalid", err)
	}
	if got, err := s.GetRematch(ctx, ana.ID, r.MatchID); err != nil || got.Status != RematchNone || len(got.OfferedBy) != 0 {
		t.Fatalf("state after refused offers: %+v, %v", got, err)
	}

	// A decline ends it; a later offer is refused and no match is made.
	if _, err := s.OfferRematch(ctx, ana.ID, r.MatchID); err != nil {
		t.Fatal(err)
	}
	got, err := s.DeclineRematch(ctx, bo.ID, r.MatchID)
	if err != nil || got.Status != RematchDeclined || got.DeclinedBy != bo.ID {
		t.Fatalf("decline: %+v, %v", got, err)
	}
	if _, err := s.OfferRematch(ctx, bo.ID, r.MatchID); !errors.Is(err, lobby.ErrPrecondition) {
		t.Fatalf("offer after decline: %v, want ErrPrecondition", err)
	}
	if n := len(m.Specs()); n != 1 {
		t.Fatalf("%d matches, want only the first", n)
	}
}

// An acceptance while the offerer is in another live match is refused
// with a BusyError; the offer stays and can be accepted afterwards.
func TestRematchWaitsForBusyPlayer(t *testing.T) {
	t.Parallel()
	s, m, mm := rematchStore(t)
	ctx := t.Context()
	r := playedRoom(t, s, Spec{Game: engine.Quoridor, Variant: "standard"})
	m.End(r.MatchID)
	if _, err := s.OfferRematch(ctx, ana.ID, r.MatchID); err != nil {
		t.Fatal(err)
	}
	if err := mm.Reserve(ctx, "bot-a", ana.ID); err != nil {
		t.Fatal(err)
	}
	botMatch, err := m.CreateMatch(ctx, lobby.MatchSpec{RequestID: "bot-a", Game: engine.Quoridor, Variant: "standard",
		First: lobby.Participant{PlayerID: ana.ID, DisplayName: ana.DisplayName}, Second: lobby.Participant{Bot: lobby.BotEasy}})
	if err != nil {
		t.Fatal(err)
	}
	if err := mm.Confirm(ctx, "bot-a", botMatch, ana.ID); err != nil {
		t.Fatal(err)
	}
	var busy *lobby.BusyError
	if _, err := s.OfferRematch(ctx, bo.ID, r.MatchID); !errors.As(err, &busy) || busy.PlayerID != ana.ID {
		t.Fatalf("accept while the offerer plays a bot: %v, want BusyError of ana", err)
	}
	got, err := s.GetRematch(ctx, bo.ID, r.MatchID)
	if err != nil || got.Status != RematchOffered || !slices.Equal(got.OfferedBy, []string{ana.ID}) {
		t.Fatalf("after a refused acceptance: %+v, %v; want ana's offer kept", got, err)
	}
	// The bot game ends (the fake match service no longer lists it).
	m.End(botMatch)
	got, err = s.OfferRematch(ctx, bo.ID, r.MatchID)
	if err != nil || got.Status != RematchStarted {
		t.Fatalf("accept later: %+v, %v", got, err)
	}
}

// Two players accepting at the same moment make exactly one match.
func TestRematchConcurrentOffersOneMatch(t *testing.T) {
	t.Parallel()
	for range 10 {
		s, m, _ := rematchStore(t)
		r := playedRoom(t, s, Spec{Game: engine.Quoridor, Variant: "standard"})
		m.End(r.MatchID)
		var wg sync.WaitGroup
		res := make([]Rematch, 2)
		errs := make([]error, 2)
		for i, p := range []lobby.Player{ana, bo} {
			wg.Go(func() { res[i], errs[i] = s.OfferRematch(t.Context(), p.ID, r.MatchID) })
		}
		wg.Wait()
		if err := errors.Join(errs...); err != nil {
			t.Fatal(err)
		}
		if n := len(m.Specs()); n != 2 {
			t.Fatalf("%d matches after two concurrent offers, want 2 (room's and rematch)", n)
		}
		final, err := s.GetRematch(t.Context(), ana.ID, r.MatchID)
		if err != nil || final.Status != RematchStarted || final.NewMatchID == "" {
			t.Fatalf("final state %+v, %v", final, err)
		}
	}
}

// A one-device room's rematches are one-device matches too (the match
// keeps waiting for a first ply as the room's did), and so are theirs; a
// room for two devices rematches as such.
func TestRematchKeepsOneDevice(t *testing.T) {
	t.Parallel()
	for _, one := range []bool{true, false} {
		s, m, _ := rematchStore(t)
		ctx := t.Context()
		r := playedRoom(t, s, Spec{Game: engine.Corners, Variant: "classic-3x3", Private: true, Password: "hunter22", OneDevice: one})
		id := r.MatchID
		for round := range 2 {
			m.End(id)
			if _, err := s.OfferRematch(ctx, ana.ID, id); err != nil {
				t.Fatal(err)
			}
			got, err := s.OfferRematch(ctx, bo.ID, id)
			if err != nil || got.NewMatchID == "" {
				t.Fatalf("rematch %d: %+v, %v", round+1, got, err)
			}
			if spec := m.Specs()[got.NewMatchID]; spec.OneDevice != one || !spec.Private {
				t.Fatalf("one-device room %v, rematch %d: match spec %+v", one, round+1, spec)
			}
			id = got.NewMatchID
		}
	}
}
