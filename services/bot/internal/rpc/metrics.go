package rpc

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"tabuleiro.dev/pkg/platform/telemetry"
)

// thinkDuration is the bot's think time per level (deploy/README.md).
var thinkDuration, _ = telemetry.Meter("tabuleiro.dev/services/bot/internal/rpc").Float64Histogram("tabuleiro.bot.think.duration",
	metric.WithDescription("Time to choose a ply, by level."), metric.WithUnit("s"),
	metric.WithExplicitBucketBoundaries(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5))

func observeThink(ctx context.Context, level string, start time.Time) {
	thinkDuration.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attribute.String("level", level)))
}
