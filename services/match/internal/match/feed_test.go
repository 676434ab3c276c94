package match_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/redisconn"
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

// loadsFrom is a Store whose loads go to another Store (of the same
// Redis).
type loadsFrom struct {
	*redisstore.Store
	loads *redisstore.Store
}

func (l loadsFrom) Load(ctx context.Context, id string, have int) (*match.State, int, error) {
	return l.loads.Load(ctx, id, have)
}

// mostReplicas is the most replicas any primary of rdb has connected.
func mostReplicas(t *testing.T, rdb redis.UniversalClient) int {
	t.Helper()
	c, ok := rdb.(*redis.ClusterClient)
	if !ok {
		n, err := redisconn.Replicas(t.Context(), rdb)
		if err != nil {
			// The one-process mode's embedded Redis has no INFO
			// replication, and no replica.
			t.Logf("replicas: %v; taking none", err)
			return 0
		}
		return int(n)
	}
	var (
		mu   sync.Mutex
		most int64
	)
	err := c.ForEachMaster(t.Context(), func(ctx context.Context, m *redis.Client) error {
		n, err := redisconn.Replicas(ctx, m)
		mu.Lock()
		most = max(most, n)
		mu.Unlock()
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return int(most)
}

// A commit whose publication never happened (with WaitReplicas, a commit
// no replica confirmed stays on the primary unpublished) reaches an idle
// feed through its hub's resync, which reads the match's last event once
// for every follower on the instance; a ply published after another lost
// one shows the feed a gap, which it fills from the stream. Every feed
// yields every event once, in order. Before the hub's resync, a feed
// re-read the stream on a timer of its own every 2 s while idle.
func TestFeedGetsLostPublicationsThroughTheHub(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	store := redisstore.New(rdb, redisstore.Options{Prefix: prefix})
	// Asks for one replica more than any primary has (a single Redis has
	// none, each primary of the test cluster one): commits, never
	// publishes.
	unpublished := redisstore.New(rdb, redisstore.Options{Prefix: prefix, WaitReplicas: mostReplicas(t, rdb) + 1, WaitTimeout: time.Millisecond})
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { stop(); wg.Wait() })
	newSvc := func(s *redisstore.Store, ms match.Store) (*match.Service, *redisstore.Hub) {
		hub := redisstore.NewHub(ctx, s, nil)
		hub.Resync = -1 // the test calls ResyncNow
		svc := match.NewService(match.Deps{
			Store: ms, Hub: hub, Rules: match.Registry{}, Now: time.Now, DealBanqi: match.DealBanqi,
		}, match.Config{})
		hub.OnCommit(svc.Observe)
		wg.Go(func() { _ = hub.Run(ctx) })
		return svc, hub
	}
	svc, hub := newSvc(store, store)
	// A load waits for the replicas too (it shows nothing a failover
	// could lose), so the lossy instance reads the state it plays on
	// without waiting, as when the replica was there for the read and
	// fell behind before the commit.
	lossy, _ := newSvc(unpublished, loadsFrom{Store: unpublished, loads: store})
	e := &env{t: t, store: store, clock: testenv.NewClock(), prefix: prefix, rdb: rdb, svcs: []*match.Service{svc}}

	st := e.create(svc, nil)
	var feeds []*match.Feed
	for range 3 {
		f, _, _, err := svc.Follow(t.Context(), st.ID, 0)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		feeds = append(feeds, f)
	}
	base := feeds[0].Last()
	lostPly := func() {
		seat, n, p := e.legal(svc, st.ID)
		if _, _, err := lossy.SubmitPly(t.Context(), st.ID, seat, n, p); err == nil {
			t.Fatalf("ply %d: committed and acknowledged; want it refused as not replicated", n)
		}
		if got, _, err := store.Load(t.Context(), st.ID, 0); err != nil || got.NextPly() != n+1 {
			t.Fatalf("ply %d not committed on the primary: next %d, %v", n, got.NextPly(), err)
		}
	}
	expect := func(seqs ...int64) {
		t.Helper()
		for i, f := range feeds {
			for _, want := range seqs {
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				ev, err := f.Next(ctx)
				cancel()
				if err != nil || ev.Seq != want {
					t.Fatalf("feed %d: next = %d, %v; want %d", i, ev.Seq, err, want)
				}
			}
		}
	}
	e.play(svc, st.ID)
	expect(base + 1)
	lostPly() // event base+2, never published
	if err := hub.ResyncNow(t.Context(), 0); err != nil {
		t.Fatal(err)
	}
	expect(base + 2)
	lostPly()          // base+3 lost
	e.play(svc, st.ID) // base+4 published: a gap
	expect(base+3, base+4)
	if err := hub.ResyncNow(t.Context(), 0); err != nil { // nothing new: nothing passed on
		t.Fatal(err)
	}
	e.play(svc, st.ID)
	expect(base + 5)
}
