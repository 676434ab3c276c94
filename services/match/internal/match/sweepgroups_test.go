package match_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// sweepSpy records the deadlines its instance claimed; blind, its sweeps
// find nothing due (an instance about to die, which fires nothing more);
// crash, its end gives up no group (they lapse, as a killed process's do).
type sweepSpy struct {
	*redisstore.Store
	blind, crash atomic.Bool
	mu           sync.Mutex
	claimed      []string
}

func (s *sweepSpy) Due(ctx context.Context, groups []int, now int64, limit int) ([]string, []match.Lease, int64, error) {
	ids, lapsed, next, err := s.Store.Due(ctx, groups, now, limit)
	if s.blind.Load() {
		return nil, nil, 0, err
	}
	return ids, lapsed, next, err
}

func (s *sweepSpy) Claim(ctx context.Context, id string, now, until int64) (bool, error) {
	won, err := s.Store.Claim(ctx, id, now, until)
	if won {
		s.mu.Lock()
		s.claimed = append(s.claimed, id)
		s.mu.Unlock()
	}
	return won, err
}

func (s *sweepSpy) ReleaseSweeper(ctx context.Context, token string) error {
	if s.crash.Load() {
		return nil
	}
	return s.Store.ReleaseSweeper(ctx, token)
}

func (s *sweepSpy) claims() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.claimed)
}

// TestSweeperGroupsSpreadAndTakenOver: two instances running (Run) share
// the sweeper groups half and half, and each fires the deadlines of its
// own groups' matches only (the firing spreads over the instances; before
// the groups one instance held the one role and fired every deadline).
// Then one is killed (its context cancelled, its groups not given up, as
// a killed process's): the other takes its groups over once they lapse,
// and the deadlines of the matches in them, which nobody else fires,
// still fire. On plain Redis (the race step) and on a Redis Cluster (the
// cluster step).
func TestSweeperGroupsSpreadAndTakenOver(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	store := redisstore.New(rdb, redisstore.Options{Prefix: prefix})
	// A lease of 2 s: at 500 ms a loaded machine (the CI's steps side by
	// side, load average 10) once let an instance's renewal lapse, and the
	// other took its groups in the middle of the first check.
	cfg := match.Config{AliveEvery: 50 * time.Millisecond, SweeperTTL: 2 * time.Second,
		ReconnectWindow: time.Second, FirstPlyTimeout: time.Second}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	var (
		svcs    []*match.Service
		spies   []*sweepSpy
		cancels []context.CancelFunc
	)
	for range 2 {
		ictx, icancel := context.WithCancel(ctx)
		spy := &sweepSpy{Store: store}
		hub := redisstore.NewHub(ictx, store, nil)
		svc := match.NewService(match.Deps{Store: spy, Hub: hub, Rules: match.Registry{}, Now: time.Now, DealBanqi: match.DealBanqi}, cfg)
		hub.OnCommit(svc.Observe)
		wg.Go(func() { _ = hub.Run(ictx) })
		wg.Go(func() { _ = svc.Run(ictx) })
		svcs, spies, cancels = append(svcs, svc), append(spies, spy), append(cancels, icancel)
	}
	a, b := svcs[0], svcs[1]
	half := store.SweepGroups() / 2
	testenv.Eventually(t, 5*time.Second, "each instance holding half the groups", func() bool {
		return len(a.SweepGroups()) == half && len(b.SweepGroups()) == half
	})
	if both := append(a.SweepGroups(), b.SweepGroups()...); len(slices.Compact(slices.Sorted(slices.Values(both)))) != store.SweepGroups() {
		t.Fatalf("groups held: %v and %v, want every group once", a.SweepGroups(), b.SweepGroups())
	}
	holderOf := func(id string) int {
		if slices.Contains(a.SweepGroups(), store.SweepGroup(id)) {
			return 0
		}
		return 1
	}
	// create makes n matches through via whose groups are held by
	// instance holder (nobody ever joins: each is aborted when its
	// window closes, a deadline).
	var created int
	create := func(via *match.Service, holder, n int) []string {
		t.Helper()
		var ids []string
		for i := 0; len(ids) < n; i++ {
			created++
			if i > 1000 {
				t.Fatalf("1000 matches created, %d of them in instance %d's groups", len(ids), holder)
			}
			st, err := via.Create(t.Context(), match.CreateParams{
				RequestID: fmt.Sprintf("%s-%d", t.Name(), created), Game: engine.Quoridor,
				Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {PlayerID: "bob", DisplayName: "Bob"}},
			})
			if err != nil {
				t.Fatal(err)
			}
			if holderOf(st.ID) == holder {
				ids = append(ids, st.ID)
			}
		}
		return ids
	}
	finished := func(ids []string) func() bool {
		return func() bool {
			for _, id := range ids {
				st, _, err := store.Load(t.Context(), id, 0)
				if err != nil || st.Status != match.StatusFinished {
					return false
				}
			}
			return true
		}
	}

	// Each instance fires its own groups' deadlines.
	mine := [2][]string{create(a, 0, 3), create(a, 1, 3)}
	testenv.Eventually(t, 30*time.Second, "every match aborted at its deadline", finished(append(mine[0], mine[1]...)))
	for i, spy := range spies {
		for _, id := range spy.claims() {
			if holderOf(id) != i {
				t.Errorf("instance %d fired the deadline of match %s, in group %d of the other instance", i, id, store.SweepGroup(id))
			}
		}
		for _, id := range mine[i] {
			if !slices.Contains(spy.claims(), id) {
				t.Errorf("instance %d did not fire the deadline of match %s, in its group %d", i, id, store.SweepGroup(id))
			}
		}
	}

	// a fires nothing more, then is killed: b takes its groups over and
	// fires the deadlines of its matches.
	spies[0].blind.Store(true)
	spies[0].crash.Store(true)
	orphans := create(b, 0, 3)
	cancels[0]()
	testenv.Eventually(t, 30*time.Second, "b holding every group", func() bool {
		return len(b.SweepGroups()) == store.SweepGroups()
	})
	testenv.Eventually(t, 30*time.Second, "the killed instance's matches aborted at their deadlines", finished(orphans))
	for _, id := range orphans {
		if !slices.Contains(spies[1].claims(), id) {
			t.Errorf("match %s of the killed instance's group %d finished without b firing its deadline", id, store.SweepGroup(id))
		}
	}
}
