package match_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	ptestenv "tabuleiro.dev/pkg/platform/testenv"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// commitHook counts the commit scripts an instance sends and the round
// trips that carry them; the first commit after arm waits for release,
// and fail makes the next pipeline of commits fail.
type commitHook struct {
	mu                    sync.Mutex
	trips, commits, waits int
	armed, failNext       bool
	flush                 func() // before the next pipeline of commits
	entered, release      chan struct{}
}

func isCommit(c redis.Cmder) bool {
	a := c.Args()
	if n := strings.ToLower(c.Name()); (n != "evalsha" && n != "eval") || len(a) < 8 {
		return false
	}
	k, _ := a[4].(string)
	d, _ := a[6].(string)
	return strings.HasSuffix(k, "}:p") && strings.HasSuffix(d, "deadlines")
}

func (h *commitHook) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *commitHook) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, c redis.Cmder) error {
		if !isCommit(c) {
			return next(ctx, c)
		}
		h.mu.Lock()
		h.trips++
		h.commits++
		wait := h.armed
		h.armed = false
		h.mu.Unlock()
		if wait {
			close(h.entered)
			<-h.release
		}
		return next(ctx, c)
	}
}

func (h *commitHook) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cs []redis.Cmder) error {
		n := 0
		for _, c := range cs {
			if isCommit(c) {
				n++
			}
		}
		if n == 0 {
			return next(ctx, cs)
		}
		h.mu.Lock()
		h.trips++
		h.commits += n
		for _, c := range cs {
			if strings.EqualFold(c.Name(), "wait") {
				h.waits++
			}
		}
		fail, flush, wait := h.failNext, h.flush, h.armed
		h.failNext, h.flush, h.armed = false, nil, false
		h.mu.Unlock()
		if wait {
			close(h.entered)
			<-h.release
		}
		if flush != nil {
			flush()
		}
		if fail {
			err := errors.New("connection lost")
			for _, c := range cs {
				c.SetErr(err)
			}
			return err
		}
		return next(ctx, cs)
	}
}

// groupEnv plays the first legal ply of k matches at once while the
// first one's commit is held in flight, and returns each ply's error.
func groupEnv(t *testing.T, k int, failGroup, flush bool) ([]error, *commitHook, *env, []string) {
	return groupEnvOn(t, newEnv(t, 1, redisstore.Options{}, match.Config{}), k, failGroup, flush, nil)
}

// groupEnvOn is groupEnv on e; ready, if not nil, runs once the matches
// are joined, before the plies.
func groupEnvOn(t *testing.T, e *env, k int, failGroup, flush bool, ready func()) ([]error, *commitHook, *env, []string) {
	svc := e.svcs[0]
	ctx := t.Context()
	ids := make([]string, k)
	for i := range ids {
		ids[i] = e.create(svc, nil).ID
		for _, seat := range []engine.Seat{engine.First, engine.Second} {
			if _, err := svc.Join(ctx, ids[i], seat); err != nil {
				t.Fatal(err)
			}
		}
	}
	type ply struct {
		seat engine.Seat
		n    int
		p    string
	}
	plies := make([]ply, k)
	for i, id := range ids {
		plies[i].seat, plies[i].n, plies[i].p = e.legal(svc, id)
	}
	if ready != nil {
		ready()
	}
	h := &commitHook{armed: true, failNext: failGroup, entered: make(chan struct{}), release: make(chan struct{})}
	if flush {
		h.flush = func() {
			if err := e.rdb.ScriptFlush(context.Background()).Err(); err != nil {
				t.Error(err)
			}
		}
	}
	e.rdb.AddHook(h)
	errs := make([]error, k)
	var wg sync.WaitGroup
	submit := func(i int) {
		wg.Go(func() { _, _, errs[i] = svc.SubmitPly(ctx, ids[i], plies[i].seat, plies[i].n, plies[i].p) })
	}
	submit(0)
	<-h.entered
	for i := 1; i < k; i++ {
		submit(i)
	}
	// Every other commit has either gone to Redis on its own or waits.
	testenv.Eventually(t, time.Second, "the other commits sent or waiting", func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.commits-1+e.store.CommitsWaiting() == k-1
	})
	close(h.release)
	wg.Wait()
	return errs, h, e, ids
}

// Commits that arrive while one is in flight go to Redis together, in one
// round trip, each acknowledged with its own script's reply.
func TestGroupCommit(t *testing.T) {
	const k = 5
	errs, h, e, ids := groupEnv(t, k, false, false)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("ply of match %d: %v", i, err)
		}
	}
	if h.commits != k || h.trips != 2 {
		t.Fatalf("%d commits in %d round trips, want %d in 2 (the one in flight, then the rest together)", h.commits, h.trips, k)
	}
	for _, id := range ids {
		st, _, err := e.svcs[0].Get(t.Context(), id)
		if err != nil || st.NextPly() != 2 {
			t.Fatalf("match %s after its ply: next ply %d, %v; want 2", id, st.NextPly(), err)
		}
	}
}

// A failed group fails exactly the commits in it: the one before it is
// acknowledged and stored, the group's are refused and not stored.
func TestGroupCommitFailure(t *testing.T) {
	const k = 4
	errs, _, e, ids := groupEnv(t, k, true, false)
	if errs[0] != nil {
		t.Fatalf("the commit in flight before the group: %v", errs[0])
	}
	for i := 1; i < k; i++ {
		if errs[i] == nil {
			t.Fatalf("ply of match %d acknowledged, its round trip failed", i)
		}
		// Named once, by the store.
		if want := "commit match " + ids[i] + ": connection lost"; errs[i].Error() != want {
			t.Fatalf("ply of match %d: error %q, want %q", i, errs[i], want)
		}
	}
	for i, id := range ids {
		want := 1
		if i == 0 {
			want = 2
		}
		st, _, err := e.store.Load(t.Context(), id, 0)
		if err != nil || st.NextPly() != want {
			t.Fatalf("match %d in the store: next ply %d, %v; want %d", i, st.NextPly(), err, want)
		}
	}
}

// A group the server answers NOSCRIPT (its script cache emptied: a
// restart, a promoted replica) is sent again in full and acknowledged.
func TestGroupCommitNoScript(t *testing.T) {
	const k = 4
	errs, _, e, ids := groupEnv(t, k, false, true)
	for i, err := range errs {
		if err != nil {
			t.Fatalf("ply of match %d: %v", i, err)
		}
	}
	for i, id := range ids {
		st, _, err := e.store.Load(t.Context(), id, 0)
		if err != nil || st.NextPly() != 2 {
			t.Fatalf("match %d in the store: next ply %d, %v; want 2", i, st.NextPly(), err)
		}
	}
}

// With replicas waited for, a group's commits go to Redis in one pipeline
// ending in one WAIT, and each is acknowledged once its own script
// committed and that WAIT was met: the replica then holds its ply, and its
// event is published. A group the server answers NOSCRIPT is sent again
// in full, with a WAIT of its own. With the replica frozen, every commit
// of the group is refused as not replicated (and stays unpublished).
func TestGroupCommitWaitReplicas(t *testing.T) {
	set := ptestenv.StartSentinelSet(t, 1)
	for _, tc := range []struct{ flush, frozen bool }{{false, false}, {true, false}, {false, true}} {
		t.Run(fmt.Sprintf("noscript=%v/frozen=%v", tc.flush, tc.frozen), func(t *testing.T) {
			const k = 5
			flush := tc.flush
			rdb := redis.NewClient(&redis.Options{Addr: set.Primary()})
			t.Cleanup(func() { _ = rdb.Close() })
			prefix := fmt.Sprintf("wait-%v-%v:", tc.flush, tc.frozen)
			timeout := time.Minute // met at once by a live replica
			if tc.frozen {
				timeout = time.Second
			}
			e := newEnvOn(t, rdb, prefix, 1, redisstore.Options{WaitReplicas: 1, WaitTimeout: timeout}, match.Config{})
			ps := rdb.PSubscribe(t.Context())
			t.Cleanup(func() { _ = ps.Close() })
			errs, h, _, ids := groupEnvOn(t, e, k, false, flush, func() {
				// Only the plies' events: the joins' are published already.
				if err := ps.PSubscribe(t.Context(), prefix+"m:{*}:c"); err != nil {
					t.Fatal(err)
				}
				if _, err := ps.Receive(t.Context()); err != nil { // the confirmation
					t.Fatal(err)
				}
				if tc.frozen {
					set.Signal(set.Replicas[0], syscall.SIGSTOP)
				}
			})
			if tc.frozen {
				for i, err := range errs {
					if !errors.Is(err, match.ErrNotReplicated) {
						set.Signal(set.Replicas[0], syscall.SIGCONT)
						t.Fatalf("ply of match %d: %v, want not replicated", i, err)
					}
				}
				if h.trips != 2 || h.waits != 2 {
					set.Signal(set.Replicas[0], syscall.SIGCONT)
					t.Fatalf("%d round trips with %d WAITs, want 2 with 2", h.trips, h.waits)
				}
				// While the ply is on the primary alone, no read shows it:
				// a failover now would lose it, and a client shown it
				// would play on a ply that never was.
				_, _, lerr := e.store.Load(t.Context(), ids[0], 0)
				_, everr := e.store.Events(t.Context(), ids[0], 0, 16)
				set.Signal(set.Replicas[0], syscall.SIGCONT)
				if !errors.Is(lerr, match.ErrNotReplicated) || !errors.Is(everr, match.ErrNotReplicated) {
					t.Fatalf("reads of a match whose ply no replica has: load %v, events %v; want not replicated", lerr, everr)
				}
				for i, id := range ids {
					st, _, err := e.store.Load(t.Context(), id, 0)
					if err != nil || st.NextPly() != 2 {
						t.Fatalf("match %d on the primary: next ply %d, %v; want 2", i, st.NextPly(), err)
					}
				}
				// Nothing before a mark published now.
				mark := prefix + "m:{mark}:c"
				if err := rdb.Publish(t.Context(), mark, "mark").Err(); err != nil {
					t.Fatal(err)
				}
				m, err := ps.ReceiveMessage(t.Context())
				if err != nil || m.Channel != mark {
					t.Fatalf("first message after the plies: %v, %v; want the mark (unreplicated plies are not published)", m, err)
				}
				return
			}
			for i, err := range errs {
				if err != nil {
					t.Fatalf("ply of match %d: %v", i, err)
				}
			}
			wantTrips := 2 // the one in flight, then the rest together
			if flush {
				wantTrips = 3 // and the rest again in full
			}
			if h.commits != k+wantTrips-2 || h.trips != wantTrips || h.waits != wantTrips {
				t.Fatalf("%d commits in %d round trips with %d WAITs, want %d in %d with as many", h.commits, h.trips, h.waits, k+wantTrips-2, wantTrips)
			}
			replica := redis.NewClient(&redis.Options{Addr: set.Replicas[0]})
			t.Cleanup(func() { _ = replica.Close() })
			for i, id := range ids {
				if n, err := replica.LLen(t.Context(), e.store.MatchKeys(id)[1]).Result(); err != nil || n != 1 {
					t.Fatalf("match %d on the replica: %d plies, %v; want 1", i, n, err)
				}
			}
			// The joins' events went before; each ply's goes once it is
			// replicated.
			want := map[string]bool{}
			for _, id := range ids {
				want[e.store.Channel(id)] = true
			}
			for len(want) > 0 {
				m, err := ps.ReceiveMessage(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				delete(want, m.Channel)
			}
		})
	}
}
