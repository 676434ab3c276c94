package match_test

import (
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// TestRejoinsKeepTheEventStreamBounded: without a presence grace every
// rejoin after a leave is two events
// (the opponent and spectators see them), but the commit script keeps at
// most StreamMaxLen of them (LTRIM of the events list; XADD MAXLEN of a
// stream, Options.Compat), so 1,000 rejoins (2,000 connection events)
// leave the events bounded; a client further behind gets a snapshot (the
// Feed's gap fallback, feed_test.go).
func TestRejoinsKeepTheEventStreamBounded(t *testing.T) {
	t.Parallel()
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "list", true: "stream"}[stream], func(t *testing.T) {
			t.Parallel()
			rejoinsBounded(t, stream)
		})
	}
}

func rejoinsBounded(t *testing.T, stream bool) {
	const maxLen = 50
	e := newEnv(t, 1, redisstore.Options{StreamMaxLen: maxLen, Compat: stream}, match.Config{PresenceGrace: -1}) // every leave announced at once
	svc := e.svcs[0]
	ctx := t.Context()
	st := e.create(svc, nil)
	e.play(svc, st.ID)
	for range 1000 {
		ep, err := svc.Join(ctx, st.ID, engine.Second)
		if err != nil {
			t.Fatal(err)
		}
		if err := svc.Leave(ctx, st.ID, engine.Second, ep); err != nil {
			t.Fatal(err)
		}
	}
	key := e.prefix + "m:{" + st.ID + "}:e"
	var n int64
	var err error
	if stream {
		n, err = e.rdb.XLen(ctx, key).Result()
	} else {
		n, err = e.rdb.LLen(ctx, key).Result()
	}
	if err != nil {
		t.Fatal(err)
	}
	if n > maxLen {
		t.Fatalf("events key holds %d events after 1,000 rejoins, want at most %d", n, maxLen)
	}
	// The kept ones are the last, and read back by seq.
	cur, _, err := svc.Get(ctx, st.ID)
	if err != nil {
		t.Fatal(err)
	}
	evs, err := e.store.Events(ctx, st.ID, cur.LastSeq-10, 100)
	if err != nil || len(evs) != 10 || evs[0].Seq != cur.LastSeq-9 || evs[9].Seq != cur.LastSeq {
		t.Fatalf("the last 10 events: %d, %v (LastSeq %d)", len(evs), err, cur.LastSeq)
	}
	if evs, err := e.store.Events(ctx, st.ID, 0, 100); err != nil || len(evs) != int(n) || evs[0].Seq != cur.LastSeq-n+1 {
		t.Fatalf("events after 0: %d, %v; want the %d kept, from seq %d", len(evs), err, n, cur.LastSeq-n+1)
	}
	t.Logf("%d events kept", n)
}
