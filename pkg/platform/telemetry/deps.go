package telemetry

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
)

// Dependency is a store a service needs, checked each time metrics are
// collected.
type Dependency struct {
	Name  string // "redis", "postgres", "redis-sentinel-quorum"
	Check func(ctx context.Context) error
}

// ObserveDependencies exports tabuleiro.dependency.up (1: the dependency
// answered its check within 2 s at the last collection, 0: it did not),
// one series per dependency, for the alerts on a store that is down
// (deploy/prometheus/rules.yml).
func ObserveDependencies(deps ...Dependency) error {
	meter := Meter("tabuleiro.dev/pkg/platform/telemetry")
	up, err := meter.Int64ObservableGauge("tabuleiro.dependency.up",
		metric.WithDescription("1 when the dependency answered its check at the last collection, 0 when it did not."), metric.WithUnit("{up}"))
	if err != nil {
		return err
	}
	_, err = meter.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		for _, d := range deps {
			cctx, cancel := context.WithTimeout(Untraced(ctx), 2*time.Second)
			v := int64(1)
			if d.Check(cctx) != nil {
				v = 0
			}
			cancel()
			o.ObserveInt64(up, v, metric.WithAttributes(attribute.String("dependency", d.Name)))
		}
		return nil
	}, up)
	return err
}
