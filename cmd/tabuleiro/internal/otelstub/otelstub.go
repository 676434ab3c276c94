// Package otelstub is an OpenTelemetry Collector stand-in for tests: an
// OTLP/gRPC receiver in the test process that implements the collector's
// trace and metric export services and records what it receives, so a
// test can start services as processes with OTEL_EXPORTER_OTLP_ENDPOINT
// pointing at it and check their spans and metrics.
package otelstub

import (
	"context"
	"encoding/hex"
	"net"
	"strconv"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/trace"
	collmetricspb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	colltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	metricspb "go.opentelemetry.io/proto/otlp/metrics/v1"
	resourcepb "go.opentelemetry.io/proto/otlp/resource/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/grpc"
	_ "google.golang.org/grpc/encoding/gzip" // OTEL_EXPORTER_OTLP_COMPRESSION=gzip
)

// Span is one received span, flattened.
type Span struct {
	Service string // the resource's service.name
	Scope   string // the instrumentation scope
	Name    string
	Kind    tracepb.Span_SpanKind
	TraceID trace.TraceID
	SpanID  trace.SpanID
	Parent  trace.SpanID // zero for a root span
	// Attrs holds the attributes, each value in its string form.
	Attrs map[string]string
	Links []trace.SpanContext
}

// Metric is one received metric of one export.
type Metric struct {
	Service string
	Scope   string
	// Seq orders exports: a later export of the same cumulative metric
	// has a higher Seq.
	Seq    int
	Metric *metricspb.Metric
}

// Collector records the spans and metrics exported to it.
type Collector struct {
	colltracepb.UnimplementedTraceServiceServer

	addr string
	srv  *grpc.Server

	mu      sync.Mutex
	spans   []Span
	metrics []Metric
	seq     int
	changed chan struct{} // closed on every export, then replaced
}

// Start serves a collector on a free loopback port until the test ends.
func Start(t testing.TB) *Collector {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := &Collector{addr: lis.Addr().String(), srv: grpc.NewServer(), changed: make(chan struct{})}
	colltracepb.RegisterTraceServiceServer(c.srv, c)
	collmetricspb.RegisterMetricsServiceServer(c.srv, metricsService{c: c})
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = c.srv.Serve(lis)
	}()
	t.Cleanup(func() {
		c.srv.Stop()
		<-done
	})
	return c
}

// Addr is the collector's host:port.
func (c *Collector) Addr() string { return c.addr }

// Endpoint is the value of OTEL_EXPORTER_OTLP_ENDPOINT that reaches the
// collector without TLS.
func (c *Collector) Endpoint() string { return "http://" + c.addr }

// Export implements the trace service.
func (c *Collector) Export(_ context.Context, req *colltracepb.ExportTraceServiceRequest) (*colltracepb.ExportTraceServiceResponse, error) {
	var got []Span
	for _, rs := range req.GetResourceSpans() {
		svc := serviceName(rs.GetResource())
		for _, ss := range rs.GetScopeSpans() {
			for _, sp := range ss.GetSpans() {
				s := Span{Service: svc, Scope: ss.GetScope().GetName(), Name: sp.GetName(), Kind: sp.GetKind(),
					Attrs: attrs(sp.GetAttributes())}
				copy(s.TraceID[:], sp.GetTraceId())
				copy(s.SpanID[:], sp.GetSpanId())
				copy(s.Parent[:], sp.GetParentSpanId())
				for _, l := range sp.GetLinks() {
					var cfg trace.SpanContextConfig
					copy(cfg.TraceID[:], l.GetTraceId())
					copy(cfg.SpanID[:], l.GetSpanId())
					s.Links = append(s.Links, trace.NewSpanContext(cfg))
				}
				got = append(got, s)
			}
		}
	}
	c.mu.Lock()
	c.spans = append(c.spans, got...)
	c.notify()
	c.mu.Unlock()
	return &colltracepb.ExportTraceServiceResponse{}, nil
}

// metricsService is the collector's metrics service (a type of its own:
// both services name their method Export).
type metricsService struct {
	collmetricspb.UnimplementedMetricsServiceServer
	c *Collector
}

// Export implements the metrics service.
func (s metricsService) Export(_ context.Context, req *collmetricspb.ExportMetricsServiceRequest) (*collmetricspb.ExportMetricsServiceResponse, error) {
	s.c.exportMetrics(req)
	return &collmetricspb.ExportMetricsServiceResponse{}, nil
}

func (c *Collector) exportMetrics(req *collmetricspb.ExportMetricsServiceRequest) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	for _, rm := range req.GetResourceMetrics() {
		svc := serviceName(rm.GetResource())
		for _, sm := range rm.GetScopeMetrics() {
			for _, m := range sm.GetMetrics() {
				c.metrics = append(c.metrics, Metric{Service: svc, Scope: sm.GetScope().GetName(), Seq: c.seq, Metric: m})
			}
		}
	}
	c.notify()
}

// notify wakes the waiters; c.mu is held.
func (c *Collector) notify() {
	close(c.changed)
	c.changed = make(chan struct{})
}

// Spans returns the spans received so far.
func (c *Collector) Spans() []Span {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Span(nil), c.spans...)
}

// Metrics returns the metrics received so far, in the order received.
func (c *Collector) Metrics() []Metric {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Metric(nil), c.metrics...)
}

// Last returns the most recently received export of the named metric from
// the service: with cumulative temporality (the SDK's default) it holds
// the totals so far.
func (c *Collector) Last(service, name string) (*metricspb.Metric, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := len(c.metrics) - 1; i >= 0; i-- {
		if m := c.metrics[i]; m.Service == service && m.Metric.GetName() == name {
			return m.Metric, true
		}
	}
	return nil, false
}

// Wait blocks until cond, evaluated now and after every export received,
// returns true, or until ctx ends (then it returns ctx's error).
func (c *Collector) Wait(ctx context.Context, cond func(*Collector) bool) error {
	for {
		c.mu.Lock()
		changed := c.changed
		c.mu.Unlock()
		if cond(c) {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-changed:
		}
	}
}

// Sum is the total of the data points of a sum or gauge metric (nil
// gives 0).
func Sum(m *metricspb.Metric) float64 {
	var pts []*metricspb.NumberDataPoint
	switch {
	case m.GetSum() != nil:
		pts = m.GetSum().GetDataPoints()
	case m.GetGauge() != nil:
		pts = m.GetGauge().GetDataPoints()
	}
	total := 0.0
	for _, p := range pts {
		switch v := p.GetValue().(type) {
		case *metricspb.NumberDataPoint_AsInt:
			total += float64(v.AsInt)
		case *metricspb.NumberDataPoint_AsDouble:
			total += v.AsDouble
		}
	}
	return total
}

// Count is the number of recordings of a histogram metric, over the data
// points whose attribute key has the value val (all when key is "").
func Count(m *metricspb.Metric, key, val string) uint64 {
	var n uint64
	for _, p := range m.GetHistogram().GetDataPoints() {
		if key == "" || attrs(p.GetAttributes())[key] == val {
			n += p.GetCount()
		}
	}
	return n
}

func serviceName(r *resourcepb.Resource) string {
	return attrs(r.GetAttributes())["service.name"]
}

func attrs(kvs []*commonpb.KeyValue) map[string]string {
	m := make(map[string]string, len(kvs))
	for _, kv := range kvs {
		m[kv.GetKey()] = valueString(kv.GetValue())
	}
	return m
}

func valueString(v *commonpb.AnyValue) string {
	switch x := v.GetValue().(type) {
	case *commonpb.AnyValue_StringValue:
		return x.StringValue
	case *commonpb.AnyValue_BoolValue:
		if x.BoolValue {
			return "true"
		}
		return "false"
	case *commonpb.AnyValue_IntValue:
		return strconv.FormatInt(x.IntValue, 10)
	case *commonpb.AnyValue_DoubleValue:
		return strconv.FormatFloat(x.DoubleValue, 'g', -1, 64)
	case *commonpb.AnyValue_BytesValue:
		return hex.EncodeToString(x.BytesValue)
	default:
		return v.String()
	}
}
