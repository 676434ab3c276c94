package match_test

import (
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// TestRejoinsKeepTheEventStreamBounded: without a presence grace every
// rejoin after a leave is two events
// (the opponent and spectators see them), but the commit script's XADD
// MAXLEN keeps at most StreamMaxLen of them, so 1,000 rejoins (2,000
// connection events) leave the stream bounded; a client further behind
// gets a snapshot (the Feed's gap fallback, feed_test.go).
func TestRejoinsKeepTheEventStreamBounded(t *testing.T) {
	t.Parallel()
	const maxLen = 50
	e := newEnv(t, 1, redisstore.Options{StreamMaxLen: maxLen}, match.Config{PresenceGrace: -1}) // every leave announced at once
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
	n, err := e.rdb.XLen(ctx, e.prefix+"m:{"+st.ID+"}:e").Result()
	if err != nil {
		t.Fatal(err)
	}
	if n > maxLen {
		t.Fatalf("event stream holds %d events after 1,000 rejoins, want at most %d", n, maxLen)
	}
	t.Logf("%d events kept", n)
}
