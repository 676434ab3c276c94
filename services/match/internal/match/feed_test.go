package match_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

func TestFeedReplayThenLiveAcrossInstances(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 2, redisstore.Options{}, match.Config{})
	a, b := e.svcs[0], e.svcs[1]
	ctx := t.Context()
	st := e.create(a, nil)
	for range 3 {
		e.play(a, st.ID)
	}
	// A client that saw event 1 rejoins on the other instance.
	f, snap, replay, err := b.Follow(ctx, st.ID, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if !replay || snap.LastSeq != 3 {
		t.Fatalf("replay %v last seq %d, want replay of 2..3", replay, snap.LastSeq)
	}
	for _, want := range []int64{2, 3} {
		ev, err := f.Next(ctx)
		if err != nil || ev.Seq != want {
			t.Fatalf("next = %d, %v; want %d", ev.Seq, err, want)
		}
	}
	// Then live events, played on the first instance.
	for want := int64(4); want <= 6; want++ {
		e.play(a, st.ID)
		ev, err := f.Next(ctx)
		if err != nil || ev.Seq != want || ev.Kind != match.EventPly || ev.Ply.Number != int(want) {
			t.Fatalf("live next = %+v, %v; want ply event %d", ev, err, want)
		}
	}
}

func TestFeedGapTooOldNeedsSnapshot(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{StreamMaxLen: 3}, match.Config{})
	svc := e.svcs[0]
	ctx := t.Context()
	st := e.create(svc, nil)
	for range 6 {
		e.play(svc, st.ID)
	}
	f, snap, replay, err := svc.Follow(ctx, st.ID, 2) // events 3..6; only 4..6 kept
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if replay {
		t.Fatal("replayed across a trimmed gap; want a snapshot")
	}
	if snap.LastSeq != 6 || len(snap.Plies) != 6 || f.Last() != 6 {
		t.Fatalf("snapshot at seq %d with %d plies, feed at %d", snap.LastSeq, len(snap.Plies), f.Last())
	}
	f2, _, replay, err := svc.Follow(ctx, st.ID, 3) // 4..6 still kept
	if err != nil {
		t.Fatal(err)
	}
	defer f2.Close()
	if !replay {
		t.Fatal("no replay from seq 3; events 4..6 are kept")
	}
}

func TestFeedSkipsAheadOnlyThroughTheStore(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{StreamMaxLen: 2}, match.Config{ResyncInterval: time.Hour})
	svc := e.svcs[0]
	ctx := t.Context()
	st := e.create(svc, nil)
	f, _, _, err := svc.Follow(ctx, st.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	f.Reset(0)
	for range 4 {
		e.play(svc, st.ID)
	}
	// Events 1 and 2 are trimmed from the stream, but all four are in the
	// hub's buffer, so the feed yields them in order.
	for want := int64(1); want <= 4; want++ {
		ev, err := f.Next(ctx)
		if err != nil || ev.Seq != want {
			t.Fatalf("next = %d, %v; want %d", ev.Seq, err, want)
		}
	}
	// A feed that is behind a trimmed stream is told to take a snapshot.
	f.Reset(0)
	e.play(svc, st.ID) // live event 5 arrives after a gap 1..4 that is trimmed
	if _, err := f.Next(ctx); !errors.Is(err, match.ErrSnapshotNeeded) {
		t.Fatalf("next after an unfillable gap: %v, want ErrSnapshotNeeded", err)
	}
}

// lossyHub passes a hub's events on, except the first one with seq drop:
// as if a Pub/Sub message were lost on the way.
type lossyHub struct {
	match.Hub
	drop    int64
	mu      sync.Mutex
	dropped bool
}

func (h *lossyHub) Subscribe(ctx context.Context, id string) (<-chan *match.Event, func(), error) {
	in, cancel, err := h.Hub.Subscribe(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	out := make(chan *match.Event, 64)
	go func() {
		defer close(out)
		for ev := range in {
			h.mu.Lock()
			lose := ev.Seq == h.drop && !h.dropped
			h.dropped = h.dropped || lose
			h.mu.Unlock()
			if !lose {
				out <- ev
			}
		}
	}()
	return out, cancel, nil
}

// A feed whose last live event was lost reads it from the stream once the
// match has been quiet for ResyncInterval, and again after every quiet
// interval: the resync timer is armed once per feed, not per event.
func TestFeedResyncsAfterALostEvent(t *testing.T) {
	t.Parallel()
	const every = 200 * time.Millisecond
	rdb, prefix := testenv.Redis(t)
	store := redisstore.New(rdb, redisstore.Options{Prefix: prefix})
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { stop(); wg.Wait() })
	hub := redisstore.NewHub(ctx, store, nil)
	wg.Go(func() { _ = hub.Run(ctx) })
	lossy := &lossyHub{Hub: hub, drop: 2}
	svc := match.NewService(match.Deps{
		Store: store, Hub: lossy, Rules: match.Registry{}, Now: time.Now, DealBanqi: match.DealBanqi,
	}, match.Config{ResyncInterval: every})
	hub.OnCommit(svc.Observe)
	e := &env{t: t, store: store, clock: testenv.NewClock(), prefix: prefix, rdb: rdb, svcs: []*match.Service{svc}}

	st := e.create(svc, nil)
	f, _, _, err := svc.Follow(t.Context(), st.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for round, lost := range []bool{false, true, false, false} {
		e.play(svc, st.ID) // ply 2's event is lost on the way
		start := time.Now()
		ctx, cancel := context.WithTimeout(t.Context(), 20*every)
		ev, err := f.Next(ctx)
		cancel()
		want := int64(round + 1)
		if err != nil || ev.Seq != want {
			t.Fatalf("next = %d, %v; want %d", ev.Seq, err, want)
		}
		if waited := time.Since(start); lost && waited < every/2 {
			t.Fatalf("lost event %d came after %v: it should wait for a quiet interval", want, waited)
		}
	}
	if !lossy.dropped {
		t.Fatal("the hub lost no event: the test did not test a resync")
	}
}
