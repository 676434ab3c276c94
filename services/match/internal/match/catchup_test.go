package match_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// countingStore counts the ply records that Load returns beyond the one a
// catching-up caller already holds.
type countingStore struct {
	*redisstore.Store
	plies atomic.Int64
}

func (c *countingStore) Load(ctx context.Context, id string, have int) (*match.State, int, error) {
	st, total, err := c.Store.Load(ctx, id, have)
	if st != nil && len(st.Plies) > 0 {
		n := len(st.Plies)
		if have > 0 {
			n-- // the caller's last ply, which it checks
		}
		c.plies.Add(int64(n))
	}
	return st, total, err
}

// Two instances take turns committing the plies of one match, as when its
// players' streams are on different instances: each catches up on the
// other's plies by reading only those (on a read, or from a lost commit's
// reply), and ends with the same state and position as a replay from the
// start.
func TestInstancesCatchUpOnEachOthersPlies(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	store := &countingStore{Store: redisstore.New(rdb, redisstore.Options{Prefix: prefix})}
	clock := testenv.NewClock()
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	var (
		svcs []*match.Service
		hubs []*redisstore.Hub
	)
	for range 2 {
		hub := redisstore.NewHub(ctx, store.Store, nil)
		svc := match.NewService(match.Deps{
			Store: store, Hub: hub, Rules: match.Registry{}, Now: clock.Now, DealBanqi: match.DealBanqi,
		}, match.Config{})
		hub.OnCommit(svc.Observe)
		wg.Go(func() { _ = hub.Run(ctx) })
		svcs, hubs = append(svcs, svc), append(hubs, hub)
	}
	e := &env{t: t}
	st := e.create(svcs[0], nil)
	play := func(svc *match.Service, i int) {
		t.Helper()
		cur, pos, err := svc.Get(t.Context(), st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if cur.Status == match.StatusFinished {
			t.Fatalf("match ended after %d plies", i)
		}
		if _, _, err := svc.SubmitPly(t.Context(), st.ID, cur.ToMove, cur.NextPly(), pos.Legal()[0].String()); err != nil {
			t.Fatalf("ply %d on instance %d: %v", i+1, i%2, err)
		}
	}
	// 1. Nobody follows the match: each instance reads, in Get, only the
	// ply the other committed.
	const plies = 20
	for i := range plies {
		play(svcs[i%2], i)
	}
	if n := store.plies.Load(); n > plies+1 {
		t.Errorf("Load returned %d ply records for %d plies over two instances; want at most %d", n, plies, plies+1)
	}
	// 2. Both instances follow the match, as when their players' streams
	// are open: each sees the other's ply published with its commit before
	// it plays, so it plays on its cache and reads nothing.
	var feeds [2]<-chan *match.Event
	var cancels [2]func()
	for i, hub := range hubs {
		ch, cancel, err := hub.Subscribe(t.Context(), st.ID)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(cancel)
		feeds[i], cancels[i] = ch, cancel
	}
	// after reads feed's events up to the one after n plies. On a Redis
	// Cluster, a publication reaches the hub's node over the cluster bus,
	// so events of the first part, published before Subscribe returned,
	// may still arrive after it: older events, which every subscriber
	// drops (the hub's fan-out, Feed, Service.Observe), are skipped here.
	after := func(feed <-chan *match.Event, n int) {
		t.Helper()
		for ev := range feed {
			if ev.Plies > n {
				t.Fatalf("event after %d plies, want %d", ev.Plies, n)
			}
			if ev.Plies == n {
				return
			}
		}
		t.Fatalf("feed closed before the event after %d plies", n)
	}
	loaded := store.plies.Load()
	for i := plies; i < 2*plies; i++ {
		if i > plies { // the other instance's ply, as this instance's stream sees it
			after(feeds[i%2], i)
		}
		play(svcs[i%2], i)
		after(feeds[i%2], i+1) // its own ply
	}
	if n := store.plies.Load() - loaded; n > 1 {
		t.Errorf("following instances loaded %d ply records for %d plies; want at most 1 (the first catch-up)", n, plies)
	}
	// 3. Instance 0 stops following and falls one ply behind; a resignation
	// there is decided on its cache, loses the commit, catches up from the
	// conflict's reply and commits on the current state.
	cancels[0]()
	play(svcs[1], 2*plies)
	loaded = store.plies.Load()
	cur, _, err := svcs[1].Get(t.Context(), st.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := svcs[0].Resign(t.Context(), st.ID, cur.ToMove); err != nil {
		t.Fatalf("resign on the stale instance: %v", err)
	}
	if n := store.plies.Load() - loaded; n != 0 {
		t.Errorf("the stale instance loaded %d ply records to resign; want 0 (the conflict brings them)", n)
	}

	var encodings [2]string
	for i, svc := range svcs {
		cur, pos, err := svc.Get(t.Context(), st.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(cur.Plies) != 2*plies+1 || cur.Status != match.StatusFinished || cur.Outcome.Reason != engine.ReasonResignation {
			t.Errorf("instance %d: %d plies, status %v, outcome %v; want %d plies and a resignation", i, len(cur.Plies), cur.Status, cur.Outcome, 2*plies+1)
		}
		for j, p := range cur.Plies {
			if p.Number != j+1 {
				t.Fatalf("instance %d: ply record %d has number %d", i, j+1, p.Number)
			}
		}
		replayed, err := svc.PositionAt(cur, len(cur.Plies))
		if err != nil {
			t.Fatal(err)
		}
		if pos.Encode() != replayed.Encode() || pos.ToMove() != replayed.ToMove() {
			t.Errorf("instance %d: cached position %s, replay gives %s", i, pos.Encode(), replayed.Encode())
		}
		encodings[i] = pos.Encode()
	}
	if encodings[0] != encodings[1] {
		t.Errorf("instances disagree: %s vs %s", encodings[0], encodings[1])
	}
}
