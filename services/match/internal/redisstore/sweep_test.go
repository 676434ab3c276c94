package redisstore

import (
	"context"
	"testing"

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
	if _, _, next, err := s.Due(ctx, now, 10); err != nil || next != 0 {
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
	ids, lapsed, next, err := s.Due(ctx, now, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != due || len(lapsed) != 0 || next != now+300 {
		t.Fatalf("Due: %v %v next %d; want [%s] [] next %d (the lease)", ids, lapsed, next, due, now+300)
	}
	_, lapsed, next, _ = s.Due(ctx, now+300, 10)
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
	got := make(chan int64, 1)
	if err := s.SweeperWakes(ctx, func(due int64) { got <- due }); err != nil {
		t.Fatal(err)
	}
	if err := s.WakeSweeper(ctx, 12345); err != nil {
		t.Fatal(err)
	}
	if due := <-got; due != 12345 {
		t.Fatalf("woken for %d, want 12345", due)
	}
}
