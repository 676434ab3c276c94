package matchmaking

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"tabuleiro.dev/pkg/platform/telemetry"
)

// The matchmaker's instruments (deploy/README.md).
var metrics = func() (m struct {
	wait      metric.Float64Histogram
	queueSize metric.Int64Gauge
}) {
	meter := telemetry.Meter("tabuleiro.dev/services/lobby/internal/matchmaking")
	m.wait, _ = meter.Float64Histogram("tabuleiro.lobby.matchmaking.wait", metric.WithDescription("Time from a ticket's enqueueing to its pairing."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300))
	m.queueSize, _ = meter.Int64Gauge("tabuleiro.lobby.queue.size", metric.WithDescription("Live tickets in a queue at the last pairing wave."), metric.WithUnit("{ticket}"))
	return m
}()

func queueAttr(qk string) metric.MeasurementOption {
	return metric.WithAttributes(attribute.String("queue", qk))
}

// observePair records the waits of a pair's two tickets.
func observePair(ctx context.Context, qk string, now time.Time, a, b snapshotTicket) {
	metrics.wait.Record(ctx, max(0, now.Sub(a.enq).Seconds()), queueAttr(qk))
	metrics.wait.Record(ctx, max(0, now.Sub(b.enq).Seconds()), queueAttr(qk))
}
