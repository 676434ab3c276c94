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
