package match_test

import (
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	platformtestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// A script that runs twice applies once: a commit whose first run went
// through is not taken for another writer's (the ply would be refused as
// stale, the join applied twice), and the match holds each ply, event and
// result once.
func TestScriptRunTwiceAppliesOnce(t *testing.T) {
	t.Parallel()
	base, prefix := testenv.Redis(t)
	rdb := platformtestenv.OpenRedis(t, "")
	h := &platformtestenv.ScriptsTwice{}
	rdb.AddHook(h)
	store := redisstore.New(rdb, redisstore.Options{Prefix: prefix})
	clock := testenv.NewClock()
	svc := match.NewService(match.Deps{Store: store, Rules: match.Registry{}, Now: clock.Now, DealBanqi: match.DealBanqi}, match.Config{})
	e := &env{t: t}
	st := e.create(svc, nil)
	ctx := t.Context()
	epochs := map[engine.Seat]int64{}
	for _, seat := range []engine.Seat{1, 2} {
		ep, err := svc.Join(ctx, st.ID, seat)
		if err != nil {
			t.Fatalf("join %d: %v", seat, err)
		}
		epochs[seat] = ep
	}
	const plies = 6
	for i := range plies {
		seat, n, p := e.legal(svc, st.ID)
		ev, dup, err := svc.SubmitPly(ctx, st.ID, seat, n, p)
		if err != nil || dup || ev.Ply == nil || ev.Ply.Number != n {
			t.Fatalf("ply %d (%s): event %+v, dup %v, %v; want it played, not a duplicate", i+1, p, ev, dup, err)
		}
	}
	if err := svc.Resign(ctx, st.ID, 1); err != nil {
		t.Fatalf("resign: %v", err)
	}
	if h.Reruns() == 0 {
		t.Fatal("no script ran twice")
	}
	// What a fresh reader finds: each change once.
	fresh := match.NewService(match.Deps{Store: redisstore.New(base, redisstore.Options{Prefix: prefix}), Rules: match.Registry{}, Now: clock.Now}, match.Config{})
	got, _, err := fresh.Get(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Plies) != plies || got.Status != match.StatusFinished {
		t.Fatalf("stored: %d plies, status %v; want %d, finished", len(got.Plies), got.Status, plies)
	}
	for _, seat := range []engine.Seat{1, 2} {
		if ep := got.Seat(seat).Epoch; ep != epochs[seat] {
			t.Errorf("seat %d epoch %d, the join said %d", seat, ep, epochs[seat])
		}
	}
	evs, err := store.Events(ctx, st.ID, 0, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(evs)) != got.LastSeq {
		t.Errorf("%d events, LastSeq %d", len(evs), got.LastSeq)
	}
	n := 0
	for _, ev := range evs {
		if ev.Kind == match.EventPly {
			n++
		}
	}
	if n != plies {
		t.Errorf("%d ply events, want %d", n, plies)
	}
	if k, err := rdb.XLen(ctx, store.IndexKeys(st.ID)[1]).Result(); err != nil || k != 1 {
		t.Errorf("outbox holds %d records (%v), want the result once", k, err)
	}

	// A deadline's claim run twice is still this sweeper's: the match
	// without a first ply is aborted by this sweep.
	st = e.create(svc, &match.TimeControl{BaseMS: 60_000})
	clock.Advance(time.Hour)
	svc.Sweep(ctx)
	if got, _, err := fresh.Get(ctx, st.ID); err != nil || got.Status != match.StatusFinished {
		t.Fatalf("after the sweep: %v, %v; want the match aborted", got, err)
	}
}
