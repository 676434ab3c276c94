package redisstore

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/testenv"
)

// Due returns what is due, and the earliest deadline or lease expiry
// after now (in any bucket): the sweeper sleeps until then.
func TestDueReturnsTheNextDeadlineOrLease(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	s := New(rdb, Options{Prefix: prefix})
	ctx := t.Context()
	const now = 1_000_000
	if _, _, next, err := s.Due(ctx, nil, now, 10); err != nil || next != 0 {
		t.Fatalf("Due with nothing: next %d, %v; want 0", next, err)
	}
	due, later, leased := newID(0), newID(5), newID(17)
	add := func(key string, score float64, member string) {
		t.Helper()
		if err := rdb.ZAdd(ctx, key, redis.Z{Score: score, Member: member}).Err(); err != nil {
			t.Fatal(err)
		}
	}
	add(s.deadlinesKey(due), now-5, due)
	add(s.deadlinesKey(later), now+900, later)
	add(s.leasesKey(leased), now+300, match.Lease{MatchID: leased, Seat: 1, Epoch: 2}.String())
	ids, lapsed, next, err := s.Due(ctx, nil, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != due || len(lapsed) != 0 || next != now+300 {
		t.Fatalf("Due: %v %v next %d; want [%s] [] next %d (the lease)", ids, lapsed, next, due, now+300)
	}
	_, lapsed, next, _ = s.Due(ctx, nil, now+300, 10)
	if len(lapsed) != 1 || lapsed[0].MatchID != leased || next != now+900 {
		t.Fatalf("Due at the lease's expiry: %v next %d; want its lease, next %d", lapsed, next, now+900)
	}
}

// A wake-up published after SweeperWakes returned reaches it.
func TestSweeperWakesHearsWakeSweeper(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	s := New(rdb, Options{Prefix: prefix})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	type wake struct {
		group int
		due   int64
	}
	got := make(chan wake, 1)
	if err := s.SweeperWakes(ctx, func(g int, due int64) { got <- wake{g, due} }); err != nil {
		t.Fatal(err)
	}
	if err := s.WakeSweeper(ctx, 7, 12345); err != nil {
		t.Fatal(err)
	}
	if w := <-got; w != (wake{7, 12345}) {
		t.Fatalf("woken for %+v, want group 7 due 12345", w)
	}
	// A wake-up of a version before the groups: any group.
	if err := rdb.Publish(ctx, s.sweepChannel(), "678").Err(); err != nil {
		t.Fatal(err)
	}
	if w := <-got; w != (wake{-1, 678}) {
		t.Fatalf("woken for %+v, want group -1 (any) due 678", w)
	}
}

// Every bucket is in one sweeper group, and a group's buckets are on one
// primary of a cluster whose slots are split evenly (redis-cli --cluster
// create's ranges) over 2, 3, 4, 6 or 12 primaries: on a cluster, a
// group's holder sweeps one primary's buckets.
func TestSweepGroupsPartitionTheBuckets(t *testing.T) {
	t.Parallel()
	s := &Store{cluster: &redis.ClusterClient{}}
	seen := map[int]int{}
	for g := range SweepGroups {
		for _, b := range s.groupBuckets(g) {
			if prev, ok := seen[b]; ok {
				t.Fatalf("bucket %d in groups %d and %d", b, prev, g)
			}
			seen[b] = g
			if groupOfBucket(b) != g {
				t.Fatalf("bucket %d listed in group %d, groupOfBucket says %d", b, g, groupOfBucket(b))
			}
		}
		if got := hashSlot(s.roleKey(g)); got != bucketSlot(s.groupBuckets(g)[0]) {
			t.Fatalf("group %d's role key in slot %d, its first bucket in %d", g, got, bucketSlot(s.groupBuckets(g)[0]))
		}
		for _, primaries := range []int{2, 3, 4, 6, 12} {
			owner := func(slot int) int { return slot * primaries / slots }
			first := owner(bucketSlot(s.groupBuckets(g)[0]))
			for _, b := range s.groupBuckets(g) {
				if owner(bucketSlot(b)) != first {
					t.Fatalf("%d primaries: group %d's buckets on primaries %d and %d", primaries, g, first, owner(bucketSlot(b)))
				}
			}
		}
	}
	if len(seen) != Buckets {
		t.Fatalf("%d of %d buckets in a group", len(seen), Buckets)
	}
	if single := (&Store{}).groupBuckets(0); single[0] != legacy {
		t.Fatalf("group 0 on a single Redis: %v, want the legacy bucket first", single)
	}
}

// Two instances asking for sweeper groups end with half each, none held
// twice; when one stops asking (a crash: it releases nothing), its groups
// lapse and the other takes them all.
func TestSweeperGroupsShareAndTakeOver(t *testing.T) {
	t.Parallel()
	rdb, prefix := testenv.Redis(t)
	s := New(rdb, Options{Prefix: prefix})
	ctx := t.Context()
	// Long enough that a loaded machine (CI's load average reaches 8) does
	// not let a's leases lapse between its last ask and the holders' read.
	const ttl = 2 * time.Second
	ask := func(token string) []int {
		t.Helper()
		gs, err := s.Sweeper(ctx, token, ttl)
		if err != nil {
			t.Fatal(err)
		}
		return gs
	}
	if gs := ask("a"); len(gs) != SweepGroups {
		t.Fatalf("a lone instance holds %v, want every group", gs)
	}
	// b joins: a gives up half at its next ask, and b takes it.
	testenv.Eventually(t, 5*time.Second, "half the groups each", func() bool {
		a, b := ask("a"), ask("b")
		return len(a) == SweepGroups/2 && len(b) == SweepGroups/2
	})
	holders, err := s.SweeperHolders(ctx)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, h := range holders {
		count[h]++
	}
	if count["a"] != SweepGroups/2 || count["b"] != SweepGroups/2 {
		t.Fatalf("holders %v, want half each", holders)
	}
	// a stops asking: b takes every group once a's lapse.
	testenv.Eventually(t, 10*time.Second, "b holding every group", func() bool { return len(ask("b")) == SweepGroups })
	// A clean stop frees them at once.
	if err := s.ReleaseSweeper(ctx, "b"); err != nil {
		t.Fatal(err)
	}
	if gs := ask("c"); len(gs) != SweepGroups {
		t.Fatalf("after b released its groups, c holds %v, want every group", gs)
	}
}
