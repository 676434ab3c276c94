package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"tabuleiro.dev/pkg/platform/telemetry"
)

// TestBotGameTelemetry runs the three services with the SDK's in-memory
// exporter and a ManualReader, plays one bot game, and checks that the
// request produced one trace across lobby, match and bot (PlayBot →
// CreateMatch → SelectPly, each server span the child of its caller's
// client span), with Redis and Postgres spans, that the logs carry the
// trace id, and that the service metrics were recorded.
//
// Not parallel: it installs the process-wide MeterProvider, and runs
// before the parallel tests so that the counts are this game's alone.
func TestBotGameTelemetry(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	reader, mp := meterProvider()
	tels := serviceTelemetry(t, mp, sdktrace.WithSyncer(spans))
	tels["lobby"].SetGlobal() // the domain metrics report through the globals
	var logs syncBuffer
	s := startStack(t, stackOptions{TLS: true, Telemetry: tels, Log: &logs})
	ctx := testContext(t)

	lobby, match := s.client(t, s.lobbyAddr), s.client(t, s.matchAddr)
	// The recorder takes a finished game out of the outbox in the
	// background: poll the metrics until it has.
	recorded := func(matchID string, want float64) metricdata.ResourceMetrics {
		t.Helper()
		var rm metricdata.ResourceMetrics
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			if err := reader.Collect(ctx, &rm); err != nil {
				t.Fatal(err)
			}
			if sumOf(rm, "tabuleiro.match.outbox.written") >= want {
				return rm
			}
			select {
			case <-ctx.Done():
				t.Fatalf("the finished game %s never left the outbox", matchID)
			case <-tick.C:
			}
		}
	}
	// A warm-up game: once its bot has played, the match service's
	// background loop runs, so the measured game's first bot ply is asked
	// for by CreateMatch itself (not by the deadline sweeper).
	var start metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &start); err != nil {
		t.Fatal(err)
	}
	warm, _ := s.playBotGame(ctx, t, lobby, match, 0)
	base := recorded(warm, sumOf(start, "tabuleiro.match.outbox.written")+1)
	spans.Reset()

	matchID, plies := s.playBotGame(ctx, t, lobby, match, 1)
	rm := recorded(matchID, sumOf(base, "tabuleiro.match.outbox.written")+1)
	delta := func(name string) float64 { return sumOf(rm, name) - sumOf(base, name) }
	deltaCount := func(name string, attrs *attribute.Set) float64 {
		return countOf(rm, name, attrs) - countOf(base, name, attrs)
	}
	botPlies := (plies + 1) / 2 // the bot moves first
	for _, c := range []struct {
		name string
		got  float64
		ok   func(float64) bool
		want string
	}{
		{"tabuleiro.match.active", sumOf(rm, "tabuleiro.match.active"), func(v float64) bool { return v == 0 }, "0 (both games created and finished)"},
		{"tabuleiro.match.plies", delta("tabuleiro.match.plies"), func(v float64) bool { return int(v) == plies }, "every ply"},
		{"tabuleiro.match.ply.duration count", deltaCount("tabuleiro.match.ply.duration", nil), func(v float64) bool { return int(v) == plies }, "every ply"},
		{"tabuleiro.bot.think.duration{level=easy} count", deltaCount("tabuleiro.bot.think.duration", &levelEasy), func(v float64) bool { return int(v) >= botPlies }, "at least the bot's plies"},
		{"tabuleiro.match.outbox.written", delta("tabuleiro.match.outbox.written"), func(v float64) bool { return v == 1 }, "1"},
	} {
		if !c.ok(c.got) {
			t.Errorf("%s = %v, want %s (game of %d plies)", c.name, c.got, c.want, plies)
		}
	}
	if !has(rm, "tabuleiro.match.outbox.lag") {
		t.Error("tabuleiro.match.outbox.lag not recorded")
	}

	// One trace from the lobby's PlayBot to the bot's SelectPly.
	all := spans.GetSpans()
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, sp := range all {
		byID[sp.SpanContext.SpanID()] = sp
	}
	find := func(name, service string, tr trace.TraceID) (tracetest.SpanStub, bool) {
		for _, sp := range all {
			if sp.Name == name && serviceOf(sp) == service && (!tr.IsValid() || sp.SpanContext.TraceID() == tr) {
				return sp, true
			}
		}
		return tracetest.SpanStub{}, false
	}
	root, ok := find("tabuleiro.lobby.v1.LobbyService/PlayBot", "lobby", trace.TraceID{})
	if !ok {
		t.Fatalf("no PlayBot server span among %d spans", len(all))
	}
	tr := root.SpanContext.TraceID()
	// chain checks that the server span of method in service is the child
	// of a client span of caller whose ancestors include parent.
	chain := func(method, service, caller string, parent tracetest.SpanStub) tracetest.SpanStub {
		t.Helper()
		srv, ok := find(method, service, tr)
		if !ok {
			t.Fatalf("no %s span of %s in trace %s", method, service, tr)
		}
		cl, ok := byID[srv.Parent.SpanID()]
		if !ok || serviceOf(cl) != caller || cl.SpanKind != trace.SpanKindClient || !srv.Parent.IsRemote() {
			t.Fatalf("%s server span's parent is %q of %q (%v), want the %s client span", method, cl.Name, serviceOf(cl), cl.SpanKind, caller)
		}
		if !descends(byID, cl, parent.SpanContext.SpanID()) {
			t.Fatalf("%s's client span does not descend from %s", method, parent.Name)
		}
		return srv
	}
	create := chain("tabuleiro.match.v1.MatchService/CreateMatch", "match", "lobby", root)
	chain("tabuleiro.bot.v1.BotService/SelectPly", "bot", "match", create)

	var redisInCreate, postgresInsert bool
	for _, sp := range all {
		for _, a := range sp.Attributes {
			if a.Key == "db.system" && a.Value.AsString() == "redis" && sp.SpanContext.TraceID() == tr && descends(byID, sp, create.SpanContext.SpanID()) {
				redisInCreate = true
			}
		}
		if sp.Name == "postgres INSERT" && serviceOf(sp) == "match" {
			postgresInsert = true
		}
	}
	if !redisInCreate {
		t.Error("no Redis span under CreateMatch")
	}
	if !postgresInsert {
		t.Error("no Postgres INSERT span from the match recorder")
	}

	// The lobby's log line of the PlayBot call carries the trace.
	found := false
	sc := bufio.NewScanner(bytes.NewReader(logs.Bytes()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line is not JSON: %q", sc.Text())
		}
		if line["rpc"] == "/tabuleiro.lobby.v1.LobbyService/PlayBot" && line["trace_id"] == tr.String() {
			found = true
			if line["span_id"] != root.SpanContext.SpanID().String() {
				t.Errorf("PlayBot log line %v: want span_id %s", line, root.SpanContext.SpanID())
			}
		}
	}
	if !found {
		t.Errorf("no PlayBot log line with trace_id %s", tr)
	}
}

// The process-wide MeterProvider can be installed only once (the otel
// global delegates once), so every run of the test (-count) shares it and
// checks differences.
// serviceTelemetry returns the lobby's, match's and bot's Telemetry: each
// a tracer provider made with opts that names its service, and mp's meters.
func serviceTelemetry(t *testing.T, mp *sdkmetric.MeterProvider, opts ...sdktrace.TracerProviderOption) map[string]*telemetry.Telemetry {
	tels := map[string]*telemetry.Telemetry{}
	for _, svc := range []string{"lobby", "match", "bot"} {
		name := sdktrace.WithResource(resource.NewSchemaless(attribute.String("service.name", svc)))
		tp := sdktrace.NewTracerProvider(append([]sdktrace.TracerProviderOption{name}, opts...)...)
		t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
		tels[svc] = telemetry.New(tp, mp)
	}
	return tels
}

var meterProvider = sync.OnceValues(func() (*sdkmetric.ManualReader, *sdkmetric.MeterProvider) {
	r := sdkmetric.NewManualReader()
	return r, sdkmetric.NewMeterProvider(sdkmetric.WithReader(r))
})

var levelEasy = attribute.NewSet(attribute.String("level", "easy"))

func serviceOf(sp tracetest.SpanStub) string {
	if sp.Resource == nil {
		return ""
	}
	v, _ := sp.Resource.Set().Value("service.name")
	return v.AsString()
}

// descends reports whether sp is ancestor or a descendant of it.
func descends(byID map[trace.SpanID]tracetest.SpanStub, sp tracetest.SpanStub, ancestor trace.SpanID) bool {
	for range 64 {
		if sp.SpanContext.SpanID() == ancestor {
			return true
		}
		p, ok := byID[sp.Parent.SpanID()]
		if !ok {
			return false
		}
		sp = p
	}
	return false
}

func metricOf(rm metricdata.ResourceMetrics, name string) (metricdata.Metrics, bool) {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == name {
				return m, true
			}
		}
	}
	return metricdata.Metrics{}, false
}

func has(rm metricdata.ResourceMetrics, name string) bool {
	_, ok := metricOf(rm, name)
	return ok
}

// sumOf adds up the data points of a sum or gauge.
func sumOf(rm metricdata.ResourceMetrics, name string) float64 {
	m, _ := metricOf(rm, name)
	total := 0.0
	switch d := m.Data.(type) {
	case metricdata.Sum[int64]:
		for _, p := range d.DataPoints {
			total += float64(p.Value)
		}
	case metricdata.Sum[float64]:
		for _, p := range d.DataPoints {
			total += p.Value
		}
	}
	return total
}

// countOf is the number of recordings of a histogram, over the data points
// whose attributes are attrs (all when nil).
func countOf(rm metricdata.ResourceMetrics, name string, attrs *attribute.Set) float64 {
	m, _ := metricOf(rm, name)
	total := 0.0
	if d, ok := m.Data.(metricdata.Histogram[float64]); ok {
		for _, p := range d.DataPoints {
			if attrs == nil || p.Attributes.Equals(attrs) {
				total += float64(p.Count)
			}
		}
	}
	return total
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) Bytes() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return bytes.Clone(s.b.Bytes())
}
