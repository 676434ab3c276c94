package matchmaking

import (
	"context"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"tabuleiro.dev/pkg/platform/telemetry"
)

// A ticket's trace context (W3C traceparent) is kept next to it, so that
// the pairing wave — on whichever lobby instance runs it, in the
// background — continues the trace of the ticket's Enqueue: one trace from
// a matchmaking ticket to the match it creates. Nothing is stored when the
// request is not traced.

// traceTTL bounds how long a ticket's trace context is kept: longer than
// any wait worth tracing as one trace.
const traceTTL = 10 * time.Minute

func (m *Matchmaker) traceKey(player, ticketID string) string {
	return m.playerKey(player, "tc:"+ticketID)
}

// saveTrace stores ctx's trace context for the ticket, for as long as the
// ticket can live.
func (m *Matchmaker) saveTrace(ctx context.Context, t Ticket) {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	carrier := propagation.MapCarrier{}
	telemetry.Propagator().Inject(ctx, carrier)
	if tp := carrier["traceparent"]; tp != "" {
		_ = m.rdb.Set(ctx, m.traceKey(t.Player.ID, t.ID), tp, traceTTL).Err()
	}
}

// pairSpan starts the span of a pair's match creation as a child of the
// first ticket's trace, linked to the second's.
func (m *Matchmaker) pairSpan(ctx context.Context, qk string, a, b snapshotTicket) (context.Context, trace.Span) {
	var parents [2]trace.SpanContext
	// Two players' keys: two slots on Redis Cluster, so two GETs.
	var tps [2]*redis.StringCmd
	_, _ = m.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		tps[0], tps[1] = p.Get(ctx, m.traceKey(a.player, a.id)), p.Get(ctx, m.traceKey(b.player, b.id))
		return nil
	})
	for i, c := range tps {
		if s, err := c.Result(); err == nil {
			parents[i] = trace.SpanContextFromContext(telemetry.Propagator().Extract(context.Background(), propagation.MapCarrier{"traceparent": s}))
		}
	}
	opts := []trace.SpanStartOption{trace.WithAttributes(attribute.String("tabuleiro.queue", qk),
		attribute.StringSlice("tabuleiro.tickets", []string{a.id, b.id}))}
	if !parents[0].IsValid() {
		parents[0], parents[1] = parents[1], parents[0]
	}
	if parents[1].IsValid() {
		opts = append(opts, trace.WithLinks(trace.Link{SpanContext: parents[1]}))
	}
	if parents[0].IsValid() {
		ctx = trace.ContextWithRemoteSpanContext(ctx, parents[0])
	}
	return telemetry.Tracer("tabuleiro.dev/services/lobby/internal/matchmaking").Start(ctx, "matchmaking.pair", opts...)
}
