package match_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/internal/testenv"
)

type env struct {
	t      testing.TB
	store  *redisstore.Store
	clock  *testenv.Clock
	prefix string
	rdb    redis.UniversalClient
	svcs   []*match.Service
}

// newEnv starts n service instances on one Redis (one hub each) with a
// settable clock; tests sweep deadlines by calling Sweep.
func newEnv(t testing.TB, n int, opts redisstore.Options, cfg match.Config) *env {
	t.Helper()
	rdb, prefix := testenv.Redis(t)
	return newEnvOn(t, rdb, prefix, n, opts, cfg)
}

// newEnvOn is newEnv on rdb, its keys under prefix.
func newEnvOn(t testing.TB, rdb redis.UniversalClient, prefix string, n int, opts redisstore.Options, cfg match.Config) *env {
	t.Helper()
	opts.Prefix = prefix
	e := &env{t: t, store: redisstore.New(rdb, opts), clock: testenv.NewClock(), prefix: prefix, rdb: rdb}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	t.Cleanup(func() { cancel(); wg.Wait() })
	for range n {
		hub := redisstore.NewHub(ctx, e.store, nil)
		svc := match.NewService(match.Deps{
			Store: e.store, Hub: hub, Rules: match.Registry{}, Now: e.clock.Now, DealBanqi: match.DealBanqi,
		}, cfg)
		hub.OnCommit(svc.Observe)
		wg.Go(func() { _ = hub.Run(ctx) })
		e.svcs = append(e.svcs, svc)
	}
	return e
}

func (e *env) create(svc *match.Service, clock *match.TimeControl) *match.State {
	e.t.Helper()
	st, err := svc.Create(e.t.Context(), match.CreateParams{
		RequestID: fmt.Sprintf("req-%d", time.Now().UnixNano()), Game: engine.Banqi,
		Seats: []match.Participant{{PlayerID: "alice", DisplayName: "Alice"}, {PlayerID: "bob", DisplayName: "Bob"}},
		Clock: clock,
	})
	if err != nil {
		e.t.Fatalf("create: %v", err)
	}
	return st
}

// legal returns the first legal ply of the side to move.
func (e *env) legal(svc *match.Service, id string) (engine.Seat, int, string) {
	e.t.Helper()
	st, pos, err := svc.Get(e.t.Context(), id)
	if err != nil {
		e.t.Fatalf("get: %v", err)
	}
	return st.ToMove, st.NextPly(), pos.Legal()[0].String()
}

func (e *env) play(svc *match.Service, id string) match.Event {
	e.t.Helper()
	seat, n, p := e.legal(svc, id)
	ev, _, err := svc.SubmitPly(e.t.Context(), id, seat, n, p)
	if err != nil {
		e.t.Fatalf("ply %d %s: %v", n, p, err)
	}
	return ev
}

func (e *env) events(id string) []match.Event {
	e.t.Helper()
	evs, err := e.store.Events(e.t.Context(), id, 0, 100000)
	if err != nil {
		e.t.Fatal(err)
	}
	return evs
}
