package otelstub_test

import (
	"context"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetricgrpc"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracegrpc"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"tabuleiro.dev/cmd/tabuleiro/internal/otelstub"
	"tabuleiro.dev/pkg/platform/testenv"
)

// TestCollectorReceives exports spans and metrics with the SDK's OTLP/gRPC
// exporters to the stand-in and checks what it recorded.
func TestCollectorReceives(t *testing.T) {
	t.Parallel()
	c := otelstub.Start(t)
	ctx := testenv.Context(t, context.Background())
	res := resource.NewSchemaless(attribute.String("service.name", "svc"))

	texp, err := otlptracegrpc.New(ctx, otlptracegrpc.WithEndpointURL(c.Endpoint()))
	if err != nil {
		t.Fatal(err)
	}
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(texp), sdktrace.WithResource(res))
	tr := tp.Tracer("scope")
	_, other := tr.Start(ctx, "other")
	other.End()
	pctx, parent := tr.Start(ctx, "parent", trace.WithSpanKind(trace.SpanKindServer))
	_, child := tr.Start(pctx, "child", trace.WithLinks(trace.Link{SpanContext: other.SpanContext()}),
		trace.WithAttributes(attribute.Int("n", 7), attribute.String("s", "x")))
	child.End()
	parent.End()

	mexp, err := otlpmetricgrpc.New(ctx, otlpmetricgrpc.WithEndpointURL(c.Endpoint()))
	if err != nil {
		t.Fatal(err)
	}
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(mexp)), sdkmetric.WithResource(res))
	counter, _ := mp.Meter("scope").Int64Counter("test.count")
	hist, _ := mp.Meter("scope").Float64Histogram("test.duration")
	counter.Add(ctx, 2)
	counter.Add(ctx, 3)
	hist.Record(ctx, 0.5, metricOpt("level", "easy"))
	hist.Record(ctx, 0.7, metricOpt("level", "hard"))
	hist.Record(ctx, 0.1, metricOpt("level", "easy"))

	// Shutdown flushes both.
	if err := tp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if err := mp.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}

	byName := map[string]otelstub.Span{}
	for _, s := range c.Spans() {
		if s.Service != "svc" || s.Scope != "scope" {
			t.Errorf("span %s: service %q scope %q", s.Name, s.Service, s.Scope)
		}
		byName[s.Name] = s
	}
	if len(byName) != 3 {
		t.Fatalf("got spans %v, want other, parent, child", byName)
	}
	p, ch := byName["parent"], byName["child"]
	if p.TraceID != parent.SpanContext().TraceID() || p.SpanID != parent.SpanContext().SpanID() || p.Parent.IsValid() || p.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("parent = %+v, want %v, a root server span", p, parent.SpanContext())
	}
	if ch.TraceID != p.TraceID || ch.Parent != p.SpanID || ch.Attrs["n"] != "7" || ch.Attrs["s"] != "x" {
		t.Errorf("child = %+v, want the child of %v with n=7 s=x", ch, p.SpanID)
	}
	if len(ch.Links) != 1 || ch.Links[0].TraceID() != other.SpanContext().TraceID() || ch.Links[0].SpanID() != other.SpanContext().SpanID() {
		t.Errorf("child links %v, want %v", ch.Links, other.SpanContext())
	}

	m, ok := c.Last("svc", "test.count")
	if !ok || otelstub.Sum(m) != 5 {
		t.Errorf("test.count = %v (%v), want 5", otelstub.Sum(m), ok)
	}
	h, ok := c.Last("svc", "test.duration")
	if !ok || otelstub.Count(h, "", "") != 3 || otelstub.Count(h, "level", "easy") != 2 {
		t.Errorf("test.duration counts %d, easy %d (%v), want 3 and 2", otelstub.Count(h, "", ""), otelstub.Count(h, "level", "easy"), ok)
	}
	if _, ok := c.Last("other", "test.count"); ok {
		t.Error("a metric of a service that exported nothing")
	}
	// Wait returns at once when the condition already holds, and with
	// the context's error when it never does.
	if err := c.Wait(ctx, func(c *otelstub.Collector) bool { return len(c.Spans()) == 3 }); err != nil {
		t.Error(err)
	}
	short, stop := context.WithTimeout(ctx, 20*time.Millisecond)
	defer stop()
	if err := c.Wait(short, func(*otelstub.Collector) bool { return false }); err == nil {
		t.Error("Wait on a false condition returned nil")
	}
}

func metricOpt(k, v string) metric.MeasurementOption {
	return metric.WithAttributes(attribute.String(k, v))
}
