package telemetry

import (
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// New returns telemetry over the given providers (tests pass SDK providers
// with in-memory exporters or a ManualReader). Nil providers are no-ops.
func New(tp trace.TracerProvider, mp metric.MeterProvider) *Telemetry {
	t := Disabled()
	if tp != nil {
		t.TracerProvider, t.TracesEnabled = tp, true
	}
	if mp != nil {
		t.MeterProvider, t.MetricsEnabled = mp, true
	}
	return t
}

// SetGlobal makes t's providers and propagator the process-wide ones that
// Meter and Tracer (and libraries using the otel globals) report to.
// Setup calls it when it turns a signal on. Instruments created before the
// first SetGlobal are forwarded to the providers it installs; later calls
// do not redirect them (the otel global API delegates once).
func (t *Telemetry) SetGlobal() {
	otel.SetTracerProvider(t.TracerProvider)
	otel.SetMeterProvider(t.MeterProvider)
	otel.SetTextMapPropagator(t.Propagator)
}

// Meter returns the meter of an instrumentation scope (the package path)
// from the process-wide MeterProvider: domain code creates its instruments
// (named tabuleiro.<service>.…) at package level with it, and they report
// to whatever Setup installed — nothing, in one-process mode by default.
func Meter(scope string) metric.Meter { return otel.Meter(scope) }

// Tracer returns the tracer of an instrumentation scope from the
// process-wide TracerProvider.
func Tracer(scope string) trace.Tracer { return otel.Tracer(scope) }

// Propagator returns the process-wide propagator (W3C trace context and
// baggage unless SetGlobal installed another).
func Propagator() propagation.TextMapPropagator { return otel.GetTextMapPropagator() }

func init() {
	// The globals default to a no-op propagator; the services always
	// propagate the W3C trace context, even with exporting off.
	otel.SetTextMapPropagator(Disabled().Propagator)
}
