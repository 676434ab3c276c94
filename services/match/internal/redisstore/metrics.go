package redisstore

import (
	"context"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"

	"tabuleiro.dev/pkg/platform/telemetry"
)

// The outbox's instruments (deploy/README.md): records acknowledged as
// written, and how long the oldest of each acknowledged batch waited.
var outboxMetrics = func() (m struct {
	written metric.Int64Counter
	lag     metric.Float64Gauge
}) {
	meter := telemetry.Meter("tabuleiro.dev/services/match/internal/redisstore")
	m.written, _ = meter.Int64Counter("tabuleiro.match.outbox.written", metric.WithDescription("Finished games taken out of the outbox (written to the results store)."), metric.WithUnit("{record}"))
	m.lag, _ = meter.Float64Gauge("tabuleiro.match.outbox.lag", metric.WithDescription("Age of the oldest entry of the last acknowledged outbox batch."), metric.WithUnit("s"))
	return m
}()

// observeAck records an acknowledged batch; stream ids start with the
// entry's Redis time in milliseconds.
func observeAck(ctx context.Context, ids []string, now time.Time) {
	outboxMetrics.written.Add(ctx, int64(len(ids)))
	oldest := int64(-1)
	for _, id := range ids {
		_, id = bucketOfEntry(id)
		ms, _, _ := strings.Cut(id, "-")
		if v, err := strconv.ParseInt(ms, 10, 64); err == nil && (oldest < 0 || v < oldest) {
			oldest = v
		}
	}
	if oldest >= 0 {
		outboxMetrics.lag.Record(ctx, max(0, now.Sub(time.UnixMilli(oldest)).Seconds()))
	}
}
