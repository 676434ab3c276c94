package recorder_test

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/recorder"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/sqlstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// outage is a Writer that fails while down, as a stopped Postgres does.
type outage struct {
	w     recorder.Writer
	down  atomic.Bool
	fails atomic.Int64
}

func (o *outage) InsertGame(ctx context.Context, r *match.Record) error {
	if o.down.Load() {
		o.fails.Add(1)
		return errors.New("connection refused")
	}
	return o.w.InsertGame(ctx, r)
}

func TestOutageDelaysButNeverLosesOrDoubles(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	db := testenv.Postgres(t)
	store := redisstore.New(rdb, redisstore.Options{Prefix: prefix, FinishedTTL: time.Minute})
	ctx, cancel := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	defer func() { cancel(); wg.Wait() }()
	hub := redisstore.NewHub(ctx, store, nil)
	wg.Go(func() { _ = hub.Run(ctx) })
	svc := match.NewService(match.Deps{Store: store, Hub: hub, Rules: match.Registry{}}, match.Config{})

	const group = "recorder"
	if err := store.EnsureGroup(ctx, group); err != nil {
		t.Fatal(err)
	}
	w := &outage{w: sqlstore.New(db)}
	w.down.Store(true)

	var ids []string
	finish := func(i int) {
		st, err := svc.Create(ctx, match.CreateParams{
			RequestID: fmt.Sprintf("r%d", i), Game: engine.Quoridor,
			Seats: []match.Participant{{PlayerID: "p1", DisplayName: "One"}, {PlayerID: "p2", DisplayName: "Two"}},
			Clock: &match.TimeControl{BaseMS: 60_000, IncrementMS: 1_000},
		})
		if err != nil {
			t.Fatal(err)
		}
		// A ply each: a game resigned before both sides moved is aborted.
		if _, _, err := svc.SubmitPly(ctx, st.ID, engine.First, 1, "e2"); err != nil {
			t.Fatal(err)
		}
		if _, _, err := svc.SubmitPly(ctx, st.ID, engine.Second, 2, "e8"); err != nil {
			t.Fatal(err)
		}
		if err := svc.Resign(ctx, st.ID, engine.Second); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, st.ID)
	}
	// One record is read by a consumer that then crashes without acking.
	finish(0)
	if got, err := store.ReadOutbox(ctx, group, "crashed", 10, 0); err != nil || len(got) != 1 {
		t.Fatalf("crashed consumer read %d, %v", len(got), err)
	}
	// Two instances' recorders run while Postgres is down; more games end.
	for i := range 2 {
		rec := recorder.New(store, w, recorder.Config{
			Group: group, Consumer: fmt.Sprintf("instance-%d", i),
			Block: 20 * time.Millisecond, MinIdle: 50 * time.Millisecond, Retry: 10 * time.Millisecond,
		}, testLogger(t))
		wg.Go(func() { _ = rec.Run(ctx) })
	}
	for i := 1; i < 5; i++ {
		finish(i)
	}
	count := func() int {
		var n int
		if err := db.QueryRowContext(ctx, "SELECT count(*) FROM games").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	testenv.Eventually(t, 5*time.Second, "failed writes during the outage", func() bool { return w.fails.Load() >= 5 })
	if n := count(); n != 0 {
		t.Fatalf("%d games recorded while Postgres was down", n)
	}
	w.down.Store(false)
	testenv.Eventually(t, 10*time.Second, "every game recorded", func() bool { return count() == 5 })

	// Exactly once, with the ply and its clock.
	var plies, clocks, reason, winner string
	var n int
	err := db.QueryRowContext(ctx, `SELECT plies, ply_clock_ms, reason, winner, ply_count FROM games WHERE game_id = $1`, ids[3]).
		Scan(&plies, &clocks, &reason, &winner, &n)
	if err != nil {
		t.Fatal(err)
	}
	// White's first ply starts no clock (60 s left); black's second is
	// its 60 s less the time it took, plus the 1 s increment.
	first, second, _ := strings.Cut(clocks, " ")
	left, err := strconv.Atoi(second)
	if plies != "e2 e8" || first != "60000" || err != nil || left > 61000 || left < 50000 || reason != "resignation" || winner != "first" || n != 2 {
		t.Fatalf("record = %q %q %q %q %d", plies, clocks, reason, winner, n)
	}
	// Nothing accumulates: the outbox empties, no deadline is left, and
	// every key of every match expires.
	testenv.Eventually(t, 5*time.Second, "an empty outbox", func() bool {
		for _, k := range store.AllIndexKeys("outbox") {
			if rdb.XLen(ctx, k).Val() != 0 {
				return false
			}
		}
		return true
	})
	for _, id := range ids {
		if _, err := rdb.ZScore(ctx, store.IndexKeys(id)[0], id).Result(); err == nil {
			t.Errorf("match %s still has a deadline", id)
		}
		for _, k := range store.MatchKeys(id) {
			ttl := rdb.PTTL(ctx, k).Val()
			if ttl == -1 || ttl > time.Minute {
				t.Errorf("key %s has ttl %v, want an expiry within a minute", k, ttl)
			}
		}
	}
	if n := count(); n != 5 {
		t.Fatalf("%d records after recovery, want 5", n)
	}
}

// stalled is an Outbox whose blocking reads (the run loop's) see nothing
// until their context ends, as when a game ends just as the process is
// told to stop; non-blocking reads (the shutdown drain's) pass through.
type stalled struct {
	*redisstore.Store
	reading chan struct{} // closed at the first blocking read
	once    sync.Once
}

func (s *stalled) ReadOutbox(ctx context.Context, group, consumer string, count int, block time.Duration) ([]redisstore.OutboxEntry, error) {
	if block >= 0 {
		s.once.Do(func() { close(s.reading) })
		<-ctx.Done()
		return nil, ctx.Err()
	}
	return s.Store.ReadOutbox(ctx, group, consumer, count, block)
}

type counting struct {
	mu  sync.Mutex
	ids []string
}

func (c *counting) InsertGame(_ context.Context, r *match.Record) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ids = append(c.ids, r.ID)
	return nil
}

// A game in the outbox when the recorder is stopped is recorded before Run
// returns (so `play --auto` then `history` shows it), not on the next start.
func TestStopRecordsWhatIsWaiting(t *testing.T) {
	t.Parallel()
	store, id := resignedMatch(t)
	w := &counting{}
	out := &stalled{Store: store, reading: make(chan struct{})}
	rec := recorder.New(out, w, recorder.Config{Consumer: "instance-0", MinIdle: time.Hour}, nil)
	runUntil(t, rec, out.reading)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.ids) != 1 || w.ids[0] != id {
		t.Errorf("recorded %v when stopped, want [%s]", w.ids, id)
	}
}

// interrupted is a Writer whose first write lasts until its context ends,
// as a write cut short by a shutdown; later writes are recorded.
type interrupted struct {
	counting
	writing chan struct{}
	once    sync.Once
	first   atomic.Bool
}

func (w *interrupted) InsertGame(ctx context.Context, r *match.Record) error {
	if w.first.CompareAndSwap(false, true) {
		w.once.Do(func() { close(w.writing) })
		<-ctx.Done()
		return ctx.Err()
	}
	return w.counting.InsertGame(ctx, r)
}

// A game whose write a shutdown interrupts (read from the outbox, not yet
// acknowledged) is written again before Run returns.
func TestStopFinishesAnInterruptedWrite(t *testing.T) {
	t.Parallel()
	store, id := resignedMatch(t)
	w := &interrupted{writing: make(chan struct{})}
	rec := recorder.New(store, w, recorder.Config{Consumer: "instance-0", MinIdle: time.Hour}, nil)
	runUntil(t, rec, w.writing)
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.ids) != 1 || w.ids[0] != id {
		t.Errorf("recorded %v when stopped mid-write, want [%s]", w.ids, id)
	}
}

// resignedMatch stores a match that ended by resignation, so its record
// waits in the outbox, and returns the store and the match id.
func resignedMatch(t *testing.T) (*redisstore.Store, string) {
	t.Helper()
	rdb, prefix := testenv.Redis(t)
	store := redisstore.New(rdb, redisstore.Options{Prefix: prefix, FinishedTTL: time.Minute})
	ctx, cancel := context.WithCancel(t.Context())
	t.Cleanup(cancel)
	hub := redisstore.NewHub(ctx, store, nil)
	go func() { _ = hub.Run(ctx) }()
	svc := match.NewService(match.Deps{Store: store, Hub: hub, Rules: match.Registry{}}, match.Config{})
	st, err := svc.Create(ctx, match.CreateParams{
		RequestID: "r", Game: engine.Quoridor,
		Seats: []match.Participant{{PlayerID: "p1", DisplayName: "One"}, {PlayerID: "p2", DisplayName: "Two"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Resign(ctx, st.ID, engine.Second); err != nil {
		t.Fatal(err)
	}
	return store, st.ID
}

// runUntil runs rec until ready is closed, then stops it and waits.
func runUntil(t *testing.T, rec *recorder.Recorder, ready <-chan struct{}) {
	t.Helper()
	ctx, stop := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() { done <- rec.Run(ctx) }()
	<-ready
	stop()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}
