package rpc

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/services/bot/internal/limit"
)

// thinkDuration is the bot's think time per level (deploy/README.md).
var meter = telemetry.Meter("tabuleiro.dev/services/bot/internal/rpc")

var thinkDuration, _ = meter.Float64Histogram("tabuleiro.bot.think.duration",
	metric.WithDescription("Time to choose a ply, by level."), metric.WithUnit("s"),
	metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5))

func observeThink(ctx context.Context, level string, start time.Time) {
	thinkDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attribute.String("level", level)))
}

// busy counts requests refused with RESOURCE_EXHAUSTED for want of a
// search slot.
var busy, _ = meter.Int64Counter("tabuleiro.bot.busy",
	metric.WithDescription("Requests refused because every search slot was taken and the queue full, or no slot freed within the caller's deadline."),
	metric.WithUnit("{request}"))

// observeLimiter reports the limiter's running and waiting searches.
func observeLimiter(l *limit.Limiter) {
	busy.Add(context.Background(), 0) // exported as 0 before the first refusal
	running, _ := meter.Int64ObservableGauge("tabuleiro.bot.searches.running",
		metric.WithDescription("Searches running now (at most BOT_MAX_SEARCHES)."), metric.WithUnit("{search}"))
	waiting, _ := meter.Int64ObservableGauge("tabuleiro.bot.searches.waiting",
		metric.WithDescription("Requests waiting for a search slot (at most BOT_MAX_QUEUE)."), metric.WithUnit("{request}"))
	_, _ = meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		s := l.Stats()
		o.ObserveInt64(running, int64(s.Running))
		o.ObserveInt64(waiting, int64(s.Waiting))
		return nil
	}, running, waiting)
}
