package match

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	"tabuleiro.dev/pkg/platform/telemetry"
)

// The match service's instruments (deploy/README.md lists them for the
// dashboard). They report to the process-wide MeterProvider that
// telemetry.Setup installs; nothing is recorded when telemetry is off.
var metrics = func() (m struct {
	plies                    metric.Int64Counter
	plyDuration              metric.Float64Histogram
	reconnections, abandoned metric.Int64Counter
	flagFalls                metric.Int64Counter
}) {
	meter := telemetry.Meter("tabuleiro.dev/services/match/internal/match")
	m.plies, _ = meter.Int64Counter("tabuleiro.match.plies", metric.WithDescription("Plies played."), metric.WithUnit("{ply}"))
	m.plyDuration, _ = meter.Float64Histogram("tabuleiro.match.ply.duration", metric.WithDescription("Time to validate and commit a submitted ply."), metric.WithUnit("s"),
		metric.WithExplicitBucketBoundaries(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1))
	m.reconnections, _ = meter.Int64Counter("tabuleiro.match.reconnections", metric.WithDescription("Seats that rejoined a match after a disconnection."), metric.WithUnit("{reconnection}"))
	m.abandoned, _ = meter.Int64Counter("tabuleiro.match.abandonments", metric.WithDescription("Matches lost because a player did not come back within the reconnection window."), metric.WithUnit("{match}"))
	m.flagFalls, _ = meter.Int64Counter("tabuleiro.match.flag_falls", metric.WithDescription("Matches lost on time."), metric.WithUnit("{match}"))
	return m
}()

// gameAttrs holds each game's attribute option, built once rather than
// (an attribute set: allocated, sorted, hashed) at every ply.
var gameAttrs = func() map[engine.Game]metric.MeasurementOption {
	m := map[engine.Game]metric.MeasurementOption{}
	for _, g := range games.List() {
		m[g] = metric.WithAttributeSet(attribute.NewSet(attribute.String("game", string(g))))
	}
	return m
}()

func gameAttr(g engine.Game) metric.MeasurementOption {
	if o, ok := gameAttrs[g]; ok {
		return o
	}
	return metric.WithAttributes(attribute.String("game", string(g)))
}

// observePly records a ply committed after start.
func observePly(ctx context.Context, g engine.Game, start time.Time) {
	metrics.plies.Add(ctx, 1, gameAttr(g))
	metrics.plyDuration.Record(ctx, time.Since(start).Seconds(), gameAttr(g))
}

// observeCommit records what a committed change did: reconnections, and
// the end of the match with its reason.
func observeCommit(ctx context.Context, c *change) {
	for _, ev := range c.events {
		switch ev.Kind {
		case EventReconnected:
			metrics.reconnections.Add(ctx, 1, gameAttr(c.st.Game))
		case EventEnded:
			switch ev.Outcome.Reason {
			case engine.ReasonTime:
				metrics.flagFalls.Add(ctx, 1, gameAttr(c.st.Game))
			case engine.ReasonAbandonment:
				metrics.abandoned.Add(ctx, 1, gameAttr(c.st.Game))
			}
		}
	}
}

// observeActive reports s's unfinished cached matches by game, and starts
// the match counters at 0 for every game, so that rate() over them is 0
// rather than empty before the first event. It returns the callback's
// unregistration.
func observeActive(s *Service) func() {
	ctx := context.Background()
	for _, g := range games.List() {
		metrics.reconnections.Add(ctx, 0, gameAttr(g))
		metrics.abandoned.Add(ctx, 0, gameAttr(g))
		metrics.flagFalls.Add(ctx, 0, gameAttr(g))
		metrics.plies.Add(ctx, 0, gameAttr(g))
	}
	// A gauge of what this replica holds, not an up-down counter of what it
	// started minus what it finished: a match started on one replica and
	// finished on another (after a drain) drove that below zero. The gauge
	// and its callback come from one meter, as the SDK requires.
	meter := telemetry.Meter("tabuleiro.dev/services/match/internal/match")
	active, err := meter.Int64ObservableGauge("tabuleiro.match.active", metric.WithDescription("Unfinished matches this replica holds in memory (a match whose seats are on two replicas counts on each)."), metric.WithUnit("{match}"))
	if err != nil {
		return func() {}
	}
	reg, err := meter.RegisterCallback(func(_ context.Context, o metric.Observer) error {
		s.mu.Lock()
		entries := make([]*entry, 0, len(s.cache))
		for _, e := range s.cache {
			entries = append(entries, e)
		}
		s.mu.Unlock()
		count := map[engine.Game]int64{}
		for _, g := range games.List() {
			count[g] = 0
		}
		for _, e := range entries {
			e.mu.Lock()
			if e.st != nil && e.st.Status != StatusFinished {
				count[e.st.Game]++
			}
			e.mu.Unlock()
		}
		for g, n := range count {
			o.ObserveInt64(active, n, metric.WithAttributes(attribute.String("game", string(g))))
		}
		return nil
	}, active)
	if err != nil {
		return func() {}
	}
	return func() { _ = reg.Unregister() }
}
