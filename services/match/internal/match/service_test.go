package match_test

import (
	"errors"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

func TestPlyRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	svc := e.svcs[0]
	st := e.create(svc, nil)
	first := e.play(svc, st.ID) // ply 1 by First
	ctx := t.Context()

	// The same ply again: the same event, nothing new (DESIGN.md principle 2).
	again, dup, err := svc.SubmitPly(ctx, st.ID, engine.First, 1, first.Ply.Notation)
	if err != nil || !dup || again.Seq != first.Seq || again.Ply.Notation != first.Ply.Notation {
		t.Fatalf("repeat of ply 1 = %+v, %v; want event seq %d", again, err, first.Seq)
	}
	seat, n, legal := e.legal(svc, st.ID)
	if seat != engine.Second || n != 2 {
		t.Fatalf("to move %v ply %d, want second ply 2", seat, n)
	}
	tests := []struct {
		name     string
		seat     engine.Seat
		number   int
		notation string
		want     error
	}{
		{"stale", engine.Second, 1, legal, match.ErrStalePly},
		{"ahead (out of turn)", engine.First, 3, legal, match.ErrStalePly},
		{"other seat's ply", engine.First, 2, legal, match.ErrOtherSeat},
		{"not seated", engine.NoSeat, 2, legal, match.ErrNotSeated},
		{"does not parse", engine.Second, 2, "zz9", match.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := svc.SubmitPly(ctx, st.ID, tt.seat, tt.number, tt.notation)
			if !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
			var pe *match.PlyError
			if errors.As(err, &pe) && pe.Current != 2 {
				t.Fatalf("current ply number %d, want 2", pe.Current)
			}
		})
	}
	if got := len(e.events(st.ID)); got != 1 {
		t.Fatalf("%d events after refusals, want 1", got)
	}
}

func TestRacingInstancesOneWinner(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2, redisstore.Options{}, match.Config{})
	st := e.create(e.svcs[0], nil)
	_, pos, err := e.svcs[0].Get(t.Context(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	legal := pos.Legal()
	for n := 1; n <= 6; n++ {
		seat, number, _ := e.legal(e.svcs[0], st.ID)
		_, pos, _ := e.svcs[1].Get(t.Context(), st.ID) // warm both caches
		legal = pos.Legal()
		plies := []string{legal[0].String(), legal[len(legal)-1].String()}
		var wg sync.WaitGroup
		errs := make([]error, 2)
		evs := make([]match.Event, 2)
		for i := range 2 {
			wg.Go(func() {
				evs[i], _, errs[i] = e.svcs[i].SubmitPly(t.Context(), st.ID, seat, number, plies[i])
			})
		}
		wg.Wait()
		won := 0
		for i := range 2 {
			if errs[i] == nil {
				won++
				continue
			}
			if !errors.Is(errs[i], match.ErrStalePly) {
				t.Fatalf("round %d: loser's error %v, want a stale ply", n, errs[i])
			}
		}
		if won != 1 {
			t.Fatalf("round %d: %d winners (%v)", n, won, errs)
		}
	}
	evs := e.events(st.ID)
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || ev.Ply.Number != i+1 {
			t.Fatalf("event %d = seq %d ply %d", i, ev.Seq, ev.Ply.Number)
		}
	}
	if len(evs) != 6 {
		t.Fatalf("%d events, want 6", len(evs))
	}
}

func TestDeadlines(t *testing.T) {
	t.Parallel()
	tc := &match.TimeControl{BaseMS: 10_000, IncrementMS: 1_000}
	tests := []struct {
		name   string
		plies  int
		leave  bool
		rejoin bool
		wait   time.Duration
		want   engine.Outcome
	}{
		{"abort without a first ply", 0, false, false, 30 * time.Second, engine.DrawBy(engine.ReasonAborted)},
		{"flag fall with no messages", 3, false, false, 11 * time.Second, engine.WinFor(engine.First, engine.ReasonTime)},
		{"abandonment after the window", 2, true, false, 5 * time.Second, engine.WinFor(engine.Second, engine.ReasonAbandonment)},
		{"rejoin in time, then flag", 2, true, true, 10 * time.Second, engine.WinFor(engine.Second, engine.ReasonTime)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, 2, redisstore.Options{}, match.Config{ReconnectWindow: 5 * time.Second})
			svc := e.svcs[0]
			st := e.create(svc, tc)
			ctx := t.Context()
			for _, seat := range []engine.Seat{engine.First, engine.Second} {
				// Both players open their streams (a seat that never joins has
				// a window of its own: TestNeverJoinedSeatEndsTheMatch).
				if _, err := svc.Join(ctx, st.ID, seat); err != nil {
					t.Fatal(err)
				}
			}
			for range tt.plies {
				e.play(svc, st.ID)
			}
			if tt.leave {
				ep, err := svc.Join(ctx, st.ID, engine.First)
				if err != nil {
					t.Fatal(err)
				}
				if err := svc.Leave(ctx, st.ID, engine.First, ep); err != nil {
					t.Fatal(err)
				}
			}
			if tt.rejoin {
				e.clock.Advance(4 * time.Second)
				if _, err := e.svcs[1].Join(ctx, st.ID, engine.First); err != nil {
					t.Fatal(err)
				}
				e.clock.Advance(tt.wait - 4*time.Second - time.Millisecond)
			} else {
				e.clock.Advance(tt.wait - time.Millisecond)
			}
			for _, s := range e.svcs {
				s.Sweep(ctx)
			}
			if got, _, _ := svc.Get(ctx, st.ID); got.Status == match.StatusFinished {
				t.Fatalf("ended %v before the deadline", got.Outcome)
			}
			e.clock.Advance(time.Millisecond)
			var wg sync.WaitGroup
			for _, s := range e.svcs { // both instances sweep at once
				wg.Go(func() { s.Sweep(ctx) })
			}
			wg.Wait()
			got, _, err := svc.Get(ctx, st.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Outcome != tt.want {
				t.Fatalf("outcome %v, want %v", got.Outcome, tt.want)
			}
			ended := 0
			for _, ev := range e.events(st.ID) {
				if ev.Kind == match.EventEnded {
					ended++
				}
			}
			if ended != 1 {
				t.Fatalf("%d game-ended events, want exactly 1", ended)
			}
		})
	}
}

func TestResignAndDraws(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	svc := e.svcs[0]
	ctx := t.Context()

	st := e.create(svc, nil)
	e.play(svc, st.ID)
	e.play(svc, st.ID) // a ply each: before that, the game would end aborted
	if err := svc.AnswerDraw(ctx, st.ID, engine.Second, true); !errors.Is(err, match.ErrNoOffer) {
		t.Fatalf("accept with no offer: %v", err)
	}
	if err := svc.OfferDraw(ctx, st.ID, engine.First); err != nil {
		t.Fatal(err)
	}
	if err := svc.OfferDraw(ctx, st.ID, engine.Second); !errors.Is(err, match.ErrOfferPending) {
		t.Fatalf("second offer: %v", err)
	}
	if err := svc.AnswerDraw(ctx, st.ID, engine.First, true); !errors.Is(err, match.ErrNoOffer) {
		t.Fatalf("accepting one's own offer: %v", err)
	}
	if err := svc.AnswerDraw(ctx, st.ID, engine.Second, false); err != nil {
		t.Fatal(err)
	}
	if err := svc.OfferDraw(ctx, st.ID, engine.Second); err != nil {
		t.Fatal(err)
	}
	if err := svc.AnswerDraw(ctx, st.ID, engine.First, true); err != nil {
		t.Fatal(err)
	}
	got, _, _ := svc.Get(ctx, st.ID)
	if got.Outcome != engine.DrawBy(engine.ReasonAgreement) {
		t.Fatalf("outcome %v, want a draw by agreement", got.Outcome)
	}
	if err := svc.Resign(ctx, st.ID, engine.First); !errors.Is(err, engine.ErrGameOver) {
		t.Fatalf("resign after the end: %v", err)
	}

	st = e.create(svc, nil)
	e.play(svc, st.ID)
	e.play(svc, st.ID)
	if err := svc.Resign(ctx, st.ID, engine.Second); err != nil {
		t.Fatal(err)
	}
	got, _, _ = svc.Get(ctx, st.ID)
	if got.Outcome != engine.WinFor(engine.First, engine.ReasonResignation) {
		t.Fatalf("outcome %v, want first wins by resignation", got.Outcome)
	}
}

func TestCreateIsIdempotent(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	p := match.CreateParams{
		RequestID: "room-7", Game: engine.Banqi,
		Seats: []match.Participant{{PlayerID: "a", DisplayName: "A"}, {PlayerID: "b", DisplayName: "B"}},
	}
	a, err := e.svcs[0].Create(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	b, err := e.svcs[0].Create(t.Context(), p)
	if err != nil {
		t.Fatal(err)
	}
	if a.ID != b.ID || b.Commitment == "" || b.Seed == "" || len(b.Layout) != 32 {
		t.Fatalf("retry gave %s (commitment %q), want %s with a dealt layout", b.ID, b.Commitment, a.ID)
	}
}

// TestPresenceLeases: a seat connected through an instance that dies
// (stops renewing without any cleanup, as under kill -9) does not stay
// connected: its lease lapses, another instance starts the reconnection
// window, and the game ends by abandonment unless the player rejoins.
func TestPresenceLeases(t *testing.T) {
	t.Parallel()
	const ttl, renew, window = 10 * time.Second, 3 * time.Second, 5 * time.Second
	tests := []struct {
		name string
		// alive: the first instance keeps renewing (it did not die).
		alive bool
		// rejoinAt: when (after the join) the player rejoins on the other
		// instance; 0 never.
		rejoinAt time.Duration
		want     engine.Outcome
	}{
		{"instance dies, nobody rejoins", false, 0, engine.WinFor(engine.Second, engine.ReasonAbandonment)},
		{"instance dies, player rejoins elsewhere after the lapse", false, 12 * time.Second, engine.Outcome{}},
		{"instance dies, player rejoins elsewhere before the lapse", false, 3 * time.Second, engine.Outcome{}},
		{"instance lives and renews", true, 0, engine.Outcome{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, 2, redisstore.Options{}, match.Config{LeaseTTL: ttl, LeaseRenew: renew, ReconnectWindow: window})
			dead, other := e.svcs[0], e.svcs[1]
			ctx := t.Context()
			st := e.create(dead, nil)
			e.play(dead, st.ID)
			e.play(dead, st.ID) // a ply each: an abandonment before would abort
			if _, err := dead.Join(ctx, st.ID, engine.First); err != nil {
				t.Fatal(err)
			}
			if _, err := other.Join(ctx, st.ID, engine.Second); err != nil {
				t.Fatal(err)
			}
			var (
				elapsed       time.Duration
				sawDisconnect bool
			)
			for elapsed < ttl+window+2*time.Second {
				e.clock.Advance(time.Second)
				elapsed += time.Second
				if tt.rejoinAt != 0 && elapsed == tt.rejoinAt {
					if _, err := other.Join(ctx, st.ID, engine.First); err != nil {
						t.Fatal(err)
					}
				}
				if elapsed%renew == 0 {
					other.Renew(ctx)
					if tt.alive {
						dead.Renew(ctx)
					}
				}
				other.Sweep(ctx)
				got, _, err := other.Get(ctx, st.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Seats[0].Conn == match.Disconnected {
					sawDisconnect = true
					if elapsed < ttl {
						t.Fatalf("disconnected after %v, before the lease's %v", elapsed, ttl)
					}
				}
				if got.Status == match.StatusFinished {
					break
				}
			}
			got, _, err := other.Get(ctx, st.ID)
			if err != nil {
				t.Fatal(err)
			}
			if got.Outcome != tt.want {
				t.Fatalf("outcome %v, want %v", got.Outcome, tt.want)
			}
			wantDisconnect := !tt.alive && tt.rejoinAt != 3*time.Second
			if sawDisconnect != wantDisconnect {
				t.Fatalf("saw a disconnection: %v, want %v", sawDisconnect, wantDisconnect)
			}
			if tt.want == (engine.Outcome{}) && (got.Seats[0].Conn != match.Connected || got.Seats[1].Conn != match.Connected) {
				t.Fatalf("seats %v/%v, want both connected", got.Seats[0].Conn, got.Seats[1].Conn)
			}
		})
	}
}

// A game of two seats that ends before each side has made a ply ends
// aborted (no winner, unrated), whatever ended it: a resignation, a draw
// agreed, with no ply or after the first side's only (issue 43: a guest
// resigning at once handed over a rated win).
func TestEndBeforeEachSidesPlyAborts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	svc := e.svcs[0]
	ctx := t.Context()
	tests := []struct {
		name  string
		plies int
		end   func(id string) error
	}{
		{"resigned with no ply", 0, func(id string) error { return svc.Resign(ctx, id, engine.Second) }},
		{"resigned after the first ply", 1, func(id string) error { return svc.Resign(ctx, id, engine.Second) }},
		{"the first mover resigns after its ply", 1, func(id string) error { return svc.Resign(ctx, id, engine.First) }},
		{"draw agreed after the first ply", 1, func(id string) error {
			if err := svc.OfferDraw(ctx, id, engine.First); err != nil {
				return err
			}
			return svc.AnswerDraw(ctx, id, engine.Second, true)
		}},
	}
	for _, tt := range tests {
		st := e.create(svc, nil)
		for range tt.plies {
			e.play(svc, st.ID)
		}
		if err := tt.end(st.ID); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		got, _, _ := svc.Get(ctx, st.ID)
		if got.Outcome != engine.DrawBy(engine.ReasonAborted) || got.Rated {
			t.Errorf("%s: outcome %v rated %v, want aborted and unrated", tt.name, got.Outcome, got.Rated)
		}
	}
}
