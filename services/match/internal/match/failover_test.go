package match_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// failoverStore plays a Redis failover at the worst moments of a ply:
// its commit is written on the primary but no replica confirms it (the
// primary answers ErrNotReplicated), and, on the client's retry, the
// primary dies after the instance read the ply back from it and before
// the store confirmed it on the replicas: the new primary never had it.
type failoverStore struct {
	*redisstore.Store
	failCommit bool   // the next commit is "not replicated"
	failover   func() // run once, before the next PlyStored
}

func (f *failoverStore) Commit(ctx context.Context, c match.Commit) error {
	err := f.Store.Commit(ctx, c)
	if err == nil && f.failCommit {
		f.failCommit = false
		return fmt.Errorf("0 of 1 replicas: %w", match.ErrNotReplicated)
	}
	return err
}

func (f *failoverStore) PlyStored(ctx context.Context, id string, ply match.PlyRecord) (bool, error) {
	if f.failover != nil {
		f.failover()
		f.failover = nil
	}
	return f.Store.PlyStored(ctx, id, ply)
}

// A ply retried after ErrNotReplicated is acknowledged as a duplicate
// only if the store that answers holds it; a store that lost it in a
// failover gets it committed again, so an acknowledged ply is never one
// the store lacks.
func TestRetriedPlyLostInFailoverIsPlayedAgain(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	store := &failoverStore{Store: e.store}
	svc := match.NewService(match.Deps{
		Store: store, Hub: nil, Rules: match.Registry{}, Now: e.clock.Now, DealBanqi: match.DealBanqi,
	}, match.Config{})
	ctx := t.Context()
	st, err := svc.Create(ctx, match.CreateParams{RequestID: "fo-" + t.Name(), Game: engine.Quoridor,
		Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {PlayerID: "bob", DisplayName: "Bob"}}})
	if err != nil {
		t.Fatal(err)
	}
	id := st.ID
	for range 3 {
		e.play(svc, id)
	}
	restore := snapshot(t, e, e.store.MatchKeys(id)[:3]) // what the replica has
	seat, n, ply := e.legal(svc, id)
	store.failCommit = true
	if _, _, err := svc.SubmitPly(ctx, id, seat, n, ply); !errors.Is(err, match.ErrNotReplicated) {
		t.Fatalf("first try of ply %d: %v, want ErrNotReplicated", n, err)
	}
	store.failover = restore
	ev, dup, err := svc.SubmitPly(ctx, id, seat, n, ply)
	if err != nil {
		t.Fatalf("retry of ply %d: %v", n, err)
	}
	if dup {
		t.Errorf("retry of ply %d acknowledged as a duplicate of a ply the store lost", n)
	}
	if ev.Ply == nil || ev.Ply.Number != n {
		t.Errorf("retry of ply %d answered %+v", n, ev)
	}
	got, total, err := e.store.Load(ctx, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if total != n || got.Plies[n-1].Notation != ply {
		t.Fatalf("after the acknowledgement the store holds %d plies (want %d, the last %s)", total, n, ply)
	}
	// And a retry of it now is a duplicate, acknowledged from the store.
	if _, dup, err := svc.SubmitPly(ctx, id, seat, n, ply); err != nil || !dup {
		t.Fatalf("second retry: dup %v, err %v", dup, err)
	}
}

// PlyStored reads the ply itself: a store without it, or with another
// ply under that number, answers false.
func TestPlyStored(t *testing.T) {
	t.Parallel()
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	ctx := t.Context()
	st := e.create(e.svcs[0], nil)
	ev := e.play(e.svcs[0], st.ID)
	rec := *ev.Ply
	if ok, err := e.store.PlyStored(ctx, st.ID, rec); err != nil || !ok {
		t.Fatalf("stored ply: %v %v", ok, err)
	}
	other := rec
	other.Seq++
	if ok, err := e.store.PlyStored(ctx, st.ID, other); err != nil || ok {
		t.Fatalf("ply with another seq: %v %v", ok, err)
	}
	next := rec
	next.Number++
	if ok, err := e.store.PlyStored(ctx, st.ID, next); err != nil || ok {
		t.Fatalf("ply not yet played: %v %v", ok, err)
	}
	if ok, err := e.store.PlyStored(ctx, "no-such-match", rec); err != nil || ok {
		t.Fatalf("unknown match: %v %v", ok, err)
	}
}
