package match_test

import (
	"context"
	"sync"
	"testing"

	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// TestJSONStoredMatchGoesOn: a match stored and published in JSON (by a
// version before the binary encoding, or one with Options.JSON during a
// rolling upgrade) is loaded, followed and played on by an instance that
// writes binary, and its whole history reads back.
func TestJSONStoredMatchGoesOn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{JSON: true}, match.Config{})
	old := e.svcs[0]
	st := e.create(old, nil)
	for range 3 {
		e.play(old, st.ID)
	}
	// A binary-writing instance on the same keys follows the match and
	// plays on; the JSON-writing one keeps following it.
	bin := redisstore.New(e.rdb, redisstore.Options{Prefix: e.prefix})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	hub := redisstore.NewHub(ctx, bin, nil)
	svc := match.NewService(match.Deps{Store: bin, Hub: hub, Rules: match.Registry{}, Now: e.clock.Now, DealBanqi: match.DealBanqi}, match.Config{})
	hub.OnCommit(svc.Observe)
	wg.Go(func() { _ = hub.Run(ctx) })

	f, got, _, err := old.Follow(t.Context(), st.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(got.Plies) != 3 {
		t.Fatalf("followed with %d plies, want 3", len(got.Plies))
	}
	for range 3 {
		e.play(svc, st.ID)
		e.play(old, st.ID)
	}
	for want := got.LastSeq + 1; want <= got.LastSeq+6; want++ {
		ev, err := f.Next(t.Context())
		if err != nil || ev.Seq != want || ev.Kind != match.EventPly || ev.MatchID != st.ID {
			t.Fatalf("event %d: %+v, %v", want, ev, err)
		}
	}
	for _, s := range []*match.Service{svc, old} {
		cur, _, err := s.Get(t.Context(), st.ID)
		if err != nil || len(cur.Plies) != 9 {
			t.Fatalf("after the upgrade: %v plies, %v", cur, err)
		}
	}
	evs, err := bin.Events(t.Context(), st.ID, 0, 100)
	if err != nil || len(evs) != 9 {
		t.Fatalf("events of both encodings: %d, %v", len(evs), err)
	}
	for i, ev := range evs {
		if ev.Seq != int64(i+1) || ev.Ply == nil || ev.Ply.Number != i+1 || ev.MatchID != st.ID {
			t.Errorf("event %d: %+v", i+1, ev)
		}
	}
}

// TestStreamStoredMatchGoesOn: a match whose events are in a Redis stream
// (stored by a version before the events list, or with
// Options.Compat during a rolling upgrade) goes on in a stream when
// an instance that keeps events in lists plays it, and the reverse; every
// event of either reads back, and a new match of the list instance gets a
// list.
func TestStreamStoredMatchGoesOn(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{Compat: true}, match.Config{})
	old := e.svcs[0]
	list := redisstore.New(e.rdb, redisstore.Options{Prefix: e.prefix})
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	hub := redisstore.NewHub(ctx, list, nil)
	svc := match.NewService(match.Deps{Store: list, Hub: hub, Rules: match.Registry{}, Now: e.clock.Now, DealBanqi: match.DealBanqi}, match.Config{})
	hub.OnCommit(svc.Observe)
	wg.Go(func() { _ = hub.Run(ctx) })

	for _, c := range []struct {
		name        string
		create, bin *match.Service
		typ         string
	}{{"stream", old, svc, "stream"}, {"list", svc, old, "list"}} {
		st := e.create(c.create, nil)
		for range 3 {
			e.play(c.create, st.ID)
		}
		f, got, _, err := c.create.Follow(t.Context(), st.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 {
			e.play(c.bin, st.ID)
			e.play(c.create, st.ID)
		}
		for want := got.LastSeq + 1; want <= got.LastSeq+6; want++ {
			ev, err := f.Next(t.Context())
			if err != nil || ev.Seq != want || ev.Kind != match.EventPly {
				t.Fatalf("%s: event %d: %+v, %v", c.name, want, ev, err)
			}
		}
		f.Close()
		if typ := e.rdb.Type(t.Context(), e.store.MatchKeys(st.ID)[2]).Val(); typ != c.typ {
			t.Errorf("%s: events key is a %s", c.name, typ)
		}
		for _, s := range []*redisstore.Store{e.store, list} {
			evs, err := s.Events(t.Context(), st.ID, 0, 100)
			if err != nil || len(evs) != 9 {
				t.Fatalf("%s: events: %d, %v", c.name, len(evs), err)
			}
			for i, ev := range evs {
				if ev.Seq != int64(i+1) || ev.Ply == nil || ev.Ply.Number != i+1 || ev.MatchID != st.ID {
					t.Errorf("%s: event %d: %+v", c.name, i+1, ev)
				}
			}
			if evs, err := s.Events(t.Context(), st.ID, 7, 1); err != nil || len(evs) != 1 || evs[0].Seq != 8 {
				t.Errorf("%s: the event after 7: %+v, %v", c.name, evs, err)
			}
		}
	}
}
