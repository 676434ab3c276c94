package match_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

// dueCountingStore counts the sweeper's reads of due deadlines.
type dueCountingStore struct {
	*redisstore.Store
	reads atomic.Int64
}

func (s *dueCountingStore) Due(ctx context.Context, groups []int, now int64, limit int) ([]string, []match.Lease, int64, error) {
	s.reads.Add(1)
	return s.Store.Due(ctx, groups, now, limit)
}

// With nothing due and nothing to wait for, the sweeper waits its longest
// wait: it read every 25 ms (SweepInterval) when Due answered "none"
// (0), about 8,000 Redis commands a second from an idle `tabuleiro serve`.
func TestIdleSweeperWaitsItsLongestWait(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	store := &dueCountingStore{Store: redisstore.New(rdb, redisstore.Options{Prefix: prefix})}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	hub := redisstore.NewHub(ctx, store.Store, nil)
	svc := match.NewService(match.Deps{Store: store, Hub: hub, Rules: match.Registry{}, Now: time.Now, DealBanqi: match.DealBanqi},
		match.Config{SweepInterval: time.Millisecond, SweepMaxWait: time.Hour})
	wg.Go(func() { _ = hub.Run(ctx) })
	wg.Go(func() { _ = svc.Run(ctx) })
	// The first sweep comes at once; none follows within the hour.
	deadline := time.Now().Add(30 * time.Second)
	for store.reads.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond) // 500 sweeps at SweepInterval before the fix
	if n := store.reads.Load(); n != 1 {
		t.Errorf("an idle sweeper read due deadlines %d times in half a second, want once (then once an hour)", n)
	}
}
