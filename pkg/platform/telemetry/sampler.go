package telemetry

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
)

// DefaultSampleRatio is the share of new traces kept when
// OTEL_TRACES_SAMPLER is unset: the default sampler is
// parentbased_traceidratio with this ratio, so a trace is kept or dropped
// whole (a service follows its caller's decision).
const DefaultSampleRatio = 0.1

// DefaultMetricExportInterval is the metric export interval when
// OTEL_METRIC_EXPORT_INTERVAL is unset (the SDK's own default is 60 s,
// too coarse for the dashboard's rate(…[1m])).
const DefaultMetricExportInterval = 15 * time.Second

type untracedKey struct{}

// Untraced marks ctx as idle polling (the match sweeper looking for due
// deadlines, the lobby's matchmaking wave, the ratings poll): no span is
// recorded under it, whatever the sampler, so an idle stack exports no
// traces. Work the poll finds is traced again under Traced(ctx).
func Untraced(ctx context.Context) context.Context {
	return context.WithValue(ctx, untracedKey{}, true)
}

// Traced undoes Untraced for the work a poll found.
func Traced(ctx context.Context) context.Context {
	return context.WithValue(ctx, untracedKey{}, false)
}

// IsUntraced reports whether ctx is marked by Untraced.
func IsUntraced(ctx context.Context) bool {
	u, _ := ctx.Value(untracedKey{}).(bool)
	return u
}

// pollingSampler drops every span started under an Untraced context and
// asks next about the others.
type pollingSampler struct{ next sdktrace.Sampler }

func (s pollingSampler) ShouldSample(p sdktrace.SamplingParameters) sdktrace.SamplingResult {
	if p.ParentContext != nil && IsUntraced(p.ParentContext) {
		return sdktrace.SamplingResult{Decision: sdktrace.Drop, Tracestate: trace.SpanContextFromContext(p.ParentContext).TraceState()}
	}
	return s.next.ShouldSample(p)
}

func (s pollingSampler) Description() string {
	return "DropIdlePolling{" + s.next.Description() + "}"
}

// Sampler returns the sampler that OTEL_TRACES_SAMPLER and
// OTEL_TRACES_SAMPLER_ARG name (always_on, always_off, traceidratio,
// parentbased_always_on, parentbased_always_off, parentbased_traceidratio;
// default parentbased_traceidratio with DefaultSampleRatio), wrapped so
// that idle polling (Untraced) is never sampled.
func Sampler(getenv func(string) string) (sdktrace.Sampler, error) {
	name := strings.ToLower(strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER")))
	arg := strings.TrimSpace(getenv("OTEL_TRACES_SAMPLER_ARG"))
	ratio := func(def float64) (float64, error) {
		if arg == "" {
			return def, nil
		}
		r, err := strconv.ParseFloat(arg, 64)
		if err != nil || r < 0 || r > 1 {
			return 0, fmt.Errorf("telemetry: OTEL_TRACES_SAMPLER_ARG %q is not a ratio between 0 and 1", arg)
		}
		return r, nil
	}
	var s sdktrace.Sampler
	switch name {
	case "", "parentbased_traceidratio":
		def := DefaultSampleRatio
		if name != "" {
			def = 1
		}
		r, err := ratio(def)
		if err != nil {
			return nil, err
		}
		s = sdktrace.ParentBased(sdktrace.TraceIDRatioBased(r))
	case "traceidratio":
		r, err := ratio(1)
		if err != nil {
			return nil, err
		}
		s = sdktrace.TraceIDRatioBased(r)
	case "always_on":
		s = sdktrace.AlwaysSample()
	case "always_off":
		s = sdktrace.NeverSample()
	case "parentbased_always_on":
		s = sdktrace.ParentBased(sdktrace.AlwaysSample())
	case "parentbased_always_off":
		s = sdktrace.ParentBased(sdktrace.NeverSample())
	default:
		return nil, fmt.Errorf("telemetry: OTEL_TRACES_SAMPLER %q is not supported (always_on, always_off, traceidratio, parentbased_always_on, parentbased_always_off, parentbased_traceidratio)", name)
	}
	return pollingSampler{next: s}, nil
}

// metricInterval is OTEL_METRIC_EXPORT_INTERVAL (milliseconds), default
// DefaultMetricExportInterval.
func metricInterval(getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv("OTEL_METRIC_EXPORT_INTERVAL"))
	if v == "" {
		return DefaultMetricExportInterval, nil
	}
	ms, err := strconv.ParseInt(v, 10, 64)
	if err != nil || ms <= 0 {
		return 0, fmt.Errorf("telemetry: OTEL_METRIC_EXPORT_INTERVAL %q is not a positive number of milliseconds", v)
	}
	return time.Duration(ms) * time.Millisecond, nil
}
