package match_test

import (
	"testing"
	"time"

	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// An ongoing match's commits renew its keys' expiries and its activity in
// the live-match index only every RefreshEvery, to LiveTTL+RefreshEvery,
// so the keys always live LiveTTL after the last write; the commit that
// ends the match sets the finished expiry at once.
func TestCommitsRenewExpiriesEveryRefresh(t *testing.T) {
	t.Parallel()
	const live, every = time.Hour, time.Minute
	e := newEnv(t, 1, redisstore.Options{LiveTTL: live, RefreshEvery: every, FinishedTTL: 30 * time.Second}, match.Config{})
	svc, ctx := e.svcs[0], t.Context()
	id := e.create(svc, nil).ID
	e.play(svc, id)
	e.play(svc, id)
	keys := e.store.MatchKeys(id)[:3]
	ttls := func() (lo, hi time.Duration) {
		t.Helper()
		lo = -1
		for _, k := range keys {
			d, err := e.rdb.PTTL(ctx, k).Result()
			if err != nil {
				t.Fatal(err)
			}
			if lo < 0 || d < lo {
				lo = d
			}
			hi = max(hi, d)
		}
		return lo, hi
	}
	if lo, hi := ttls(); lo < live || hi > live+every {
		t.Fatalf("after the first plies: expiries %v to %v, want %v to %v", lo, hi, live, live+every)
	}
	activity := func() int64 {
		t.Helper()
		v, err := e.rdb.ZScore(ctx, e.store.IndexKeys(id)[3], id).Result()
		if err != nil {
			t.Fatal(err)
		}
		return int64(v)
	}
	// Shorten the expiries by hand: a commit within RefreshEvery of the
	// last renewal leaves them (and the activity time) as they are...
	for _, k := range keys {
		e.rdb.PExpire(ctx, k, time.Minute)
	}
	at := activity()
	e.clock.Advance(every / 2)
	e.play(svc, id)
	if _, hi := ttls(); hi > time.Minute {
		t.Fatalf("a commit within RefreshEvery renewed an expiry to %v", hi)
	}
	if got := activity(); got != at {
		t.Fatalf("activity moved from %d to %d within RefreshEvery", at, got)
	}
	// ...and the first one RefreshEvery after it renews both.
	e.clock.Advance(every / 2)
	e.play(svc, id)
	if lo, hi := ttls(); lo < live || hi > live+every {
		t.Fatalf("after RefreshEvery: expiries %v to %v, want %v to %v", lo, hi, live, live+every)
	}
	if got, want := activity(), e.clock.Now().UnixMilli(); got != want {
		t.Fatalf("activity %d, want %d", got, want)
	}
	// The end sets the finished expiry whenever it comes.
	e.clock.Advance(time.Second)
	st, _, err := svc.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if err := svc.Resign(ctx, id, st.ToMove); err != nil {
		t.Fatal(err)
	}
	if lo, hi := ttls(); lo <= 0 || hi > 30*time.Second {
		t.Fatalf("after the end: expiries %v to %v, want at most 30s", lo, hi)
	}
	if _, err := e.rdb.ZScore(ctx, e.store.IndexKeys(id)[3], id).Result(); err == nil {
		t.Fatal("the ended match is still in the live index")
	}
}
