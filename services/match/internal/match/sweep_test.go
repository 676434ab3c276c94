package match_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/redisstore"
)

// tripCounter counts the round trips to Redis, single commands and
// pipelines, made with a context that carries counted (so that the
// service's own background work on the same client, a lease renewal say,
// is not counted).
type tripCounter struct{ n atomic.Int64 }

// counted marks a context whose round trips tripCounter counts.
type counted struct{}

func (h *tripCounter) count(ctx context.Context) {
	if ctx.Value(counted{}) != nil {
		h.n.Add(1)
	}
}

func (h *tripCounter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *tripCounter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, c redis.Cmder) error {
		h.count(ctx)
		return next(ctx, c)
	}
}

func (h *tripCounter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cs []redis.Cmder) error {
		h.count(ctx)
		return next(ctx, cs)
	}
}

// A sweep that finds nothing to do — the sweeping replica's idle poll,
// many times a second — is one round trip to Redis: the due deadlines and
// the lapsed leases are read together (TestPresenceLeases checks that
// what lapses is still found).
func TestIdleSweepOneRoundTrip(t *testing.T) {
	e := newEnv(t, 1, redisstore.Options{}, match.Config{})
	svc := e.svcs[0]
	st := e.create(svc, nil)
	for _, seat := range []engine.Seat{engine.First, engine.Second} {
		if _, err := svc.Join(t.Context(), st.ID, seat); err != nil {
			t.Fatal(err)
		}
	}
	e.play(svc, st.ID) // a match with a deadline and leases, none due
	h := &tripCounter{}
	e.rdb.AddHook(h)
	svc.Sweep(context.WithValue(t.Context(), counted{}, true))
	if n := h.n.Load(); n != 1 {
		t.Fatalf("an idle sweep took %d round trips, want 1", n)
	}
}
