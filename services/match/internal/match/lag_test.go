package match_test

import (
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// probe measures seat's round trip as rtt: a probe sent now, answered rtt
// later (the test's clock).
func (e *env) probe(svc *match.Service, id string, seat engine.Seat, rtt time.Duration) {
	e.t.Helper()
	p, err := svc.SendProbe(e.t.Context(), id, seat)
	if err != nil {
		e.t.Fatal(err)
	}
	e.clock.Advance(rtt)
	if err := svc.AnswerProbe(e.t.Context(), id, seat, p); err != nil {
		e.t.Fatal(err)
	}
}

// lagMatch starts a clocked match both seats joined, with its first ply
// played (the clocks run from then on).
func (e *env) lagMatch(tc match.TimeControl) (*match.Service, string) {
	e.t.Helper()
	svc := e.svcs[0]
	st := e.create(svc, &tc)
	for _, seat := range []engine.Seat{engine.First, engine.Second} {
		if _, err := svc.Join(e.t.Context(), st.ID, seat); err != nil {
			e.t.Fatal(err)
		}
	}
	e.play(svc, st.ID)
	return svc, st.ID
}

// TestLagCreditBoundedByEstimate: a seat measured at 200 ms round trip is
// credited 100 ms (half) of a 1 s think, exactly; a seat without an
// estimate is credited nothing; answers to an old probe, or twice, add no
// sample.
func TestLagCreditBoundedByEstimate(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	svc, id := e.lagMatch(match.TimeControl{BaseMS: 60_000})
	ctx := t.Context()
	seat, _, _ := e.legal(svc, id)
	old, err := svc.SendProbe(ctx, id, seat)
	if err != nil {
		t.Fatal(err)
	}
	e.probe(svc, id, seat, 200*time.Millisecond) // replaces old
	for _, p := range []uint64{old, old + 1} {   // stale, forged: ignored
		if err := svc.AnswerProbe(ctx, id, seat, p); err != nil {
			t.Fatal(err)
		}
	}
	st, _, _ := svc.Get(ctx, id)
	think := int64(1000)
	e.clock.Advance(time.Duration(st.TurnStart+think-e.clock.Now().UnixMilli()) * time.Millisecond)
	ev := e.play(svc, id)
	if ev.Ply.LagMS != 100 || ev.Ply.ThinkMS != think || ev.Ply.ClockMS != 60_000-think+100 {
		t.Fatalf("ply after a 200 ms round trip: lag credit %d, think %d, clock %d; want 100, %d, %d",
			ev.Ply.LagMS, ev.Ply.ThinkMS, ev.Ply.ClockMS, think, 60_000-think+100)
	}
	e.clock.Advance(time.Second)
	if ev := e.play(svc, id); ev.Ply.LagMS != 0 || ev.Ply.ClockMS != 59_000 {
		t.Fatalf("ply of a seat that answered no probe: credit %d, clock %d; want 0, 59000", ev.Ply.LagMS, ev.Ply.ClockMS)
	}
}

// TestLyingAboutProbesGainsAtMostTheQuota: a seat that answers every probe
// 10 s late (a 5 s "one-way lag") gains at most its quota: the first ply
// its 3 gains, then one gain a ply, never more than its think time; one
// that never answers gains nothing.
func TestLyingAboutProbesGainsAtMostTheQuota(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	tc := match.TimeControl{BaseMS: 60 * 60_000}
	gain := match.LagGainMS(&tc) // 1 s for a 60-minute game
	svc, id := e.lagMatch(tc)
	liar, _, _ := e.legal(svc, id)
	honestLess := liar.Other() // never answers
	var total, plies int64
	quota := match.LagQuotaStart * gain
	for range 20 {
		seat, _, _ := e.legal(svc, id)
		st, _, _ := svc.Get(t.Context(), id)
		if seat == liar {
			e.probe(svc, id, seat, 10*time.Second) // answered 10 s late
		}
		e.clock.Advance(time.Duration(st.TurnStart+6000-e.clock.Now().UnixMilli()) * time.Millisecond)
		ev := e.play(svc, id)
		switch seat {
		case liar:
			want := min(quota, 5000, ev.Ply.ThinkMS)
			if ev.Ply.LagMS != want {
				t.Fatalf("liar's ply %d: credit %d, want %d (quota %d)", ev.Ply.Number, ev.Ply.LagMS, want, quota)
			}
			quota = min(quota+gain-want, match.LagQuotaMax*gain)
			total += ev.Ply.LagMS
			plies++
		case honestLess:
			if ev.Ply.LagMS != 0 {
				t.Fatalf("a seat that never answered was credited %d ms", ev.Ply.LagMS)
			}
		}
	}
	if bound := match.LagQuotaStart*gain + (plies-1)*gain; total > bound {
		t.Fatalf("the liar gained %d ms over %d plies, more than the quota allows (%d)", total, plies, bound)
	}
	t.Logf("liar: %d ms credited over %d plies (gain %d ms)", total, plies, gain)
}

// TestFlagWaitsForTheCreditInTransit: the flag of a seat with a lag
// estimate falls that much after its clock reaches zero (at most its
// quota); a ply within it is saved by its credit; past it, the sweeper
// ends the game on time.
func TestFlagWaitsForTheCreditInTransit(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	ctx := t.Context()
	for _, saved := range []bool{true, false} {
		svc, id := e.lagMatch(match.TimeControl{BaseMS: 5000})
		seat, _, _ := e.legal(svc, id)
		other := seat.Other()
		e.probe(svc, id, other, 600*time.Millisecond) // other's one-way lag: 300 ms
		e.play(svc, id)                               // seat plays; other's turn, with its estimate
		st, _, _ := svc.Get(ctx, id)
		if st.ToMove != other {
			t.Fatalf("to move %v, want %v", st.ToMove, other)
		}
		zero := st.TurnStart + st.Remaining[other.Index()]
		e.clock.Advance(time.Duration(zero+299-e.clock.Now().UnixMilli()) * time.Millisecond)
		svc.Sweep(ctx)
		if st, _, _ := svc.Get(ctx, id); st.Status == match.StatusFinished {
			t.Fatalf("the flag fell %d ms after zero, with 300 ms in transit", 299)
		}
		if saved {
			ev := e.play(svc, id)
			if ev.Ply.LagMS != 300 || ev.Ply.ClockMS != 1 {
				t.Fatalf("ply 299 ms after zero: credit %d, clock %d; want 300, 1", ev.Ply.LagMS, ev.Ply.ClockMS)
			}
			continue
		}
		e.clock.Advance(time.Millisecond)
		svc.Sweep(ctx)
		st, _, _ = svc.Get(ctx, id)
		if st.Status != match.StatusFinished || st.Outcome.Reason != engine.ReasonTime || st.Outcome.Winner != seat {
			t.Fatalf("300 ms after zero: %v %+v, want %v to win on time", st.Status, st.Outcome, seat)
		}
	}
}

// TestLagStoredOnlyWhenItMoves: a Play stream's samples that move the
// seat's estimate less than LagStoreStepMS from the stored one stay on the
// instance (no write), which still credits its exact estimate, also after
// it reads the store again; a larger move is written, and another
// instance reads it.
func TestLagStoredOnlyWhenItMoves(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2, redisstore.Options{}, match.Config{})
	svc, id := e.lagMatch(match.TimeControl{BaseMS: 60_000})
	ctx := t.Context()
	seat, _, _ := e.legal(svc, id)
	stored := func() match.Lag {
		t.Helper()
		l, err := e.store.Lags(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		return l[seat.Index()]
	}
	if err := svc.RecordRoundTrip(ctx, id, seat, 200); err != nil {
		t.Fatal(err)
	}
	if l := stored(); l.RTTMS != 200 {
		t.Fatalf("first estimate stored as %+v, want 200 ms", l)
	}
	if err := svc.RecordRoundTrip(ctx, id, seat, 208); err != nil { // 200 -> 202
		t.Fatal(err)
	}
	if l := stored(); l.RTTMS != 200 || l.Samples != 1 {
		t.Fatalf("a 2 ms move was stored: %+v", l)
	}
	// Past lagsFresh the instance reads the store again, and keeps its
	// own estimate, which nobody else changed.
	e.clock.Advance(6 * time.Second)
	if ev := e.play(svc, id); ev.Ply.LagMS != 101 {
		t.Fatalf("credit %d ms, want 101 (half of the instance's 202 ms)", ev.Ply.LagMS)
	}
	if err := svc.RecordRoundTrip(ctx, id, seat, 238); err != nil { // 202 -> 211
		t.Fatal(err)
	}
	if l := stored(); l.RTTMS != 211 || l.Samples != 3 {
		t.Fatalf("a 11 ms move stored as %+v, want 211 ms after 3 samples", l)
	}
	// Another instance's estimate of the seat is the stored one.
	if err := e.svcs[1].RecordRoundTrip(ctx, id, seat, 211); err != nil {
		t.Fatal(err)
	}
	if l := stored(); l.RTTMS != 211 || l.Samples != 3 {
		t.Fatalf("an unchanged estimate was stored again: %+v", l)
	}
}
