// Package telemetry sets up OpenTelemetry tracing and metrics from the
// standard OTEL_* environment variables, exporting over OTLP/gRPC. It is off
// (no-op providers, nothing exported, nothing dialled) unless an OTLP
// endpoint is configured.
//
// Variables read through the caller's getenv:
//   - OTEL_SDK_DISABLED=true turns everything off;
//   - OTEL_EXPORTER_OTLP_ENDPOINT (for example http://collector:4317), or
//     the per-signal OTEL_EXPORTER_OTLP_TRACES_ENDPOINT and
//     OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, turn a signal on; an http://
//     endpoint is dialled without TLS;
//   - OTEL_TRACES_EXPORTER / OTEL_METRICS_EXPORTER: "otlp" (default) or
//     "none";
//   - OTEL_EXPORTER_OTLP_PROTOCOL: only "grpc" (the default) is supported;
//   - OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG choose the sampler
//     (default parentbased_traceidratio at DefaultSampleRatio, see Sampler);
//     spans under an Untraced context (idle polling) are never sampled;
//   - OTEL_METRIC_EXPORT_INTERVAL, in milliseconds (default 15 s).
//
// The exporters and resource detection also honour the other OTEL_*
// variables (headers, timeouts, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES),
// which the OpenTelemetry SDK reads itself.
//
// When a signal is on, Setup also installs the providers as the otel
// globals (SetGlobal): the services' domain metrics (Meter) and the Redis
// instrumentation report through them. NewLogger adds trace_id and span_id
// to JSON logs.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/contrib/instrumentation/google.golang.org/grpc/otelgrpc"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/metric"
	metricnoop "go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracenoop "go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc/stats"
)

// Telemetry holds the providers a service passes to its gRPC server and
// clients. The zero value is not useful: use Setup or Disabled.
type Telemetry struct {
	TracerProvider trace.TracerProvider
	MeterProvider  metric.MeterProvider
	Propagator     propagation.TextMapPropagator
	// TracesEnabled and MetricsEnabled report what Setup turned on.
	TracesEnabled, MetricsEnabled bool

	shutdown []func(context.Context) error
}

// Disabled returns no-op telemetry that still propagates trace context.
func Disabled() *Telemetry {
	return &Telemetry{
		TracerProvider: tracenoop.NewTracerProvider(),
		MeterProvider:  metricnoop.NewMeterProvider(),
		Propagator:     propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{}),
	}
}

// Setup returns the telemetry of the named service as the OTEL_* variables
// configure it (see the package comment). Call Shutdown before exiting to
// flush what is buffered. Errors the OpenTelemetry SDK reports later (an
// export that failed, a collector that is down) go to logger at warn level,
// as JSON like every other line of the service, not to the standard log.
func Setup(ctx context.Context, service string, getenv func(string) string, logger *slog.Logger) (*Telemetry, error) {
	t := Disabled()
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		logger.Warn("telemetry", "err", err)
	}))
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_SDK_DISABLED")), "true") {
		return t, nil
	}
	if p := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_PROTOCOL")); p != "" && p != "grpc" {
		return nil, fmt.Errorf("telemetry: OTEL_EXPORTER_OTLP_PROTOCOL %q is not supported (only grpc)", p)
	}
	traceURL := endpoint(getenv, "TRACES")
	metricURL := endpoint(getenv, "METRICS")
	if traceURL == "" && metricURL == "" {
		return t, nil
	}
	sampler, err := Sampler(getenv)
	if err != nil {
		return nil, err
	}
	interval, err := metricInterval(getenv)
	if err != nil {
		return nil, err
	}
	res, err := resource.New(ctx,
		// service.instance.id tells replicas apart (the collector turns it
		// into Prometheus's instance label): the host name (a container's
		// or pod's own) and the process id, unless OTEL_RESOURCE_ATTRIBUTES
		// sets one.
		resource.WithAttributes(attribute.String("service.name", service), attribute.String("service.instance.id", instanceID())),
		resource.WithFromEnv(),
		resource.WithTelemetrySDK(),
	)
	if err != nil {
		return nil, fmt.Errorf("telemetry resource: %w", err)
	}
	if traceURL != "" {
		exp, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(traceURL))
		if err != nil {
			return nil, fmt.Errorf("telemetry trace exporter: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res), sdktrace.WithSampler(sampler))
		t.TracerProvider, t.TracesEnabled = tp, true
		t.shutdown = append(t.shutdown, tp.Shutdown)
	}
	if metricURL != "" {
		exp, err := otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(metricURL))
		if err != nil {
			return nil, errors.Join(fmt.Errorf("telemetry metric exporter: %w", err), t.Shutdown(ctx))
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp, sdkmetric.WithInterval(interval))), sdkmetric.WithResource(res))
		t.MeterProvider, t.MetricsEnabled = mp, true
		t.shutdown = append(t.shutdown, mp.Shutdown)
	}
	t.SetGlobal()
	return t, nil
}

// endpoint returns the OTLP endpoint URL of a signal, or "" when the signal
// is off.
func endpoint(getenv func(string) string, signal string) string {
	if strings.EqualFold(strings.TrimSpace(getenv("OTEL_"+signal+"_EXPORTER")), "none") {
		return ""
	}
	if u := strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_" + signal + "_ENDPOINT")); u != "" {
		return u
	}
	return strings.TrimSpace(getenv("OTEL_EXPORTER_OTLP_ENDPOINT"))
}

// Shutdown flushes and stops the exporters; it is a no-op when disabled.
func (t *Telemetry) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range t.shutdown {
		errs = append(errs, f(ctx))
	}
	t.shutdown = nil
	return errors.Join(errs...)
}

func (t *Telemetry) options() []otelgrpc.Option {
	return []otelgrpc.Option{
		otelgrpc.WithTracerProvider(t.TracerProvider),
		otelgrpc.WithMeterProvider(t.MeterProvider),
		otelgrpc.WithPropagators(t.Propagator),
		// Health probes would drown the traces.
		otelgrpc.WithFilter(func(info *stats.RPCTagInfo) bool {
			return !strings.HasPrefix(info.FullMethodName, "/grpc.health.v1.Health/")
		}),
	}
}

// ServerHandler returns the otelgrpc stats handler for a gRPC server.
func (t *Telemetry) ServerHandler() stats.Handler { return otelgrpc.NewServerHandler(t.options()...) }

// ClientHandler returns the otelgrpc stats handler for a gRPC client
// (grpc.WithStatsHandler), so that traces follow calls between services.
func (t *Telemetry) ClientHandler() stats.Handler { return otelgrpc.NewClientHandler(t.options()...) }

// instanceID is "<host name>-<pid>".
func instanceID() string {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "unknown"
	}
	return fmt.Sprintf("%s-%d", host, os.Getpid())
}
