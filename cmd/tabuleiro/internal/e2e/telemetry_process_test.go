package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"go.opentelemetry.io/otel/trace"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"

	"tabuleiro.dev/cmd/tabuleiro/internal/otelstub"
)

// TestTelemetryAcrossProcesses runs lobby, match and bot as their built
// binaries, exporting by OTLP/gRPC (configured only by the standard OTEL_*
// variables) to a collector stand-in, plays one bot game, stops the
// services with SIGTERM and checks at the stand-in that the game made one
// trace across the three services (lobby PlayBot → match CreateMatch → bot
// SelectPly, each server span the child of its caller's client span), with
// Redis and Postgres spans, and that the service metrics arrived with this
// game's counts.
func TestTelemetryAcrossProcesses(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	col := otelstub.Start(t)
	svc := startServices(ctx, t, []string{
		"OTEL_EXPORTER_OTLP_ENDPOINT=" + col.Endpoint(),
		"OTEL_EXPORTER_OTLP_INSECURE=true",
		"OTEL_BSP_SCHEDULE_DELAY=50",      // ms
		"OTEL_METRIC_EXPORT_INTERVAL=100", // ms
		// The default keeps 10% of traces: this test follows one game.
		"OTEL_TRACES_SAMPLER=parentbased_always_on",
		// The per-call log lines (off by default) that the trace ids are
		// checked in.
		"LOBBY_LOG_LEVEL=DEBUG", "MATCH_LOG_LEVEL=DEBUG", "BOT_LOG_LEVEL=DEBUG",
	})
	st := &stack{issuer: svc.issuer}
	matchID, plies := st.playBotGame(ctx, t, st.client(t, svc.lobbyAddr), st.client(t, svc.matchAddr), 2)

	// The recorder writes the finished game to Postgres in the
	// background: wait until the stand-in has seen it, and the whole
	// trace, before stopping the services.
	const (
		playBot     = "tabuleiro.lobby.v1.LobbyService/PlayBot"
		createMatch = "tabuleiro.match.v1.MatchService/CreateMatch"
		selectPly   = "tabuleiro.bot.v1.BotService/SelectPly"
	)
	err := col.Wait(ctx, func(c *otelstub.Collector) bool {
		written, ok := c.Last("match", "tabuleiro.match.outbox.written")
		if !ok || otelstub.Sum(written) < 1 {
			return false
		}
		spans := c.Spans()
		root, ok := findSpan(spans, playBot, "lobby", trace.TraceID{})
		if !ok {
			return false
		}
		_, create := findSpan(spans, createMatch, "match", root.TraceID)
		_, sel := findSpan(spans, selectPly, "bot", root.TraceID)
		return create && sel && slices.ContainsFunc(spans, func(s otelstub.Span) bool { return s.Service == "match" && s.Name == "postgres INSERT" })
	})
	if err != nil {
		t.Errorf("the stand-in did not receive the game's trace and outbox record (match %s): %v", matchID, err)
	}
	svc.stop(ctx, t)
	if t.Failed() {
		return
	}

	// One trace from the lobby's PlayBot to the bot's SelectPly.
	spans := col.Spans()
	byID := map[trace.SpanID]otelstub.Span{}
	for _, s := range spans {
		byID[s.SpanID] = s
	}
	root, _ := findSpan(spans, playBot, "lobby", trace.TraceID{})
	tr := root.TraceID
	if root.Parent.IsValid() || root.Kind != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("PlayBot span %+v: want a root server span", root)
	}
	chain := func(method, service, caller string, parent otelstub.Span) otelstub.Span {
		t.Helper()
		srv, ok := findSpan(spans, method, service, tr)
		if !ok {
			t.Fatalf("no %s span of %s in trace %s", method, service, tr)
		}
		cl, ok := byID[srv.Parent]
		if !ok || cl.Service != caller || cl.Kind != tracepb.Span_SPAN_KIND_CLIENT || cl.TraceID != tr {
			t.Fatalf("%s server span's parent is %q of %q (%v), want the %s client span", method, cl.Name, cl.Service, cl.Kind, caller)
		}
		if !stubDescends(byID, cl, parent.SpanID) {
			t.Fatalf("%s's client span does not descend from %s", method, parent.Name)
		}
		return srv
	}
	create := chain(createMatch, "match", "lobby", root)
	chain(selectPly, "bot", "match", create)
	inTrace := map[string]bool{}
	var redisInCreate, postgres bool
	for _, s := range spans {
		if s.TraceID == tr {
			inTrace[s.Service] = true
			if s.Attrs["db.system"] == "redis" && s.Service == "match" && stubDescends(byID, s, create.SpanID) {
				redisInCreate = true
			}
		}
		if s.Service == "match" && s.Name == "postgres INSERT" {
			postgres = true
		}
	}
	if len(inTrace) != 3 || !inTrace["lobby"] || !inTrace["match"] || !inTrace["bot"] {
		t.Errorf("trace %s spans services %v, want lobby, match and bot", tr, inTrace)
	}
	if !redisInCreate {
		t.Error("no Redis span under CreateMatch")
	}
	if !postgres {
		t.Error("no Postgres INSERT span from the match recorder")
	}

	// The metrics: each service is a fresh process, so after the final
	// flush the cumulative values are this game's.
	botPlies := uint64(plies+1) / 2 // the bot moves first
	last := func(service, name string) float64 {
		m, ok := col.Last(service, name)
		if !ok {
			t.Errorf("%s: no %s received", service, name)
		}
		if m.GetHistogram() != nil {
			return float64(otelstub.Count(m, "", ""))
		}
		return otelstub.Sum(m)
	}
	for _, c := range []struct {
		service, name string
		want          float64
	}{
		{"match", "tabuleiro.match.active", 0},
		{"match", "tabuleiro.match.plies", float64(plies)},
		{"match", "tabuleiro.match.ply.duration", float64(plies)},
		{"match", "tabuleiro.match.outbox.written", 1},
	} {
		if got := last(c.service, c.name); got != c.want {
			t.Errorf("%s %s = %v, want %v (a game of %d plies)", c.service, c.name, got, c.want, plies)
		}
	}
	if m, ok := col.Last("match", "tabuleiro.match.outbox.lag"); !ok || m.GetGauge() == nil {
		t.Errorf("tabuleiro.match.outbox.lag: %v (received %v), want a gauge", m, ok)
	}
	if m, ok := col.Last("bot", "tabuleiro.bot.think.duration"); !ok || otelstub.Count(m, "level", "easy") < botPlies {
		t.Errorf("tabuleiro.bot.think.duration{level=easy} count %d, want at least the bot's %d plies", otelstub.Count(m, "level", "easy"), botPlies)
	}
	// The otelgrpc metrics of every server and client.
	for service, want := range map[string][]string{
		"lobby": {"rpc.server.call.duration", "rpc.client.call.duration"},
		"match": {"rpc.server.call.duration", "rpc.client.call.duration"},
		"bot":   {"rpc.server.call.duration"},
	} {
		for _, name := range want {
			if _, ok := col.Last(service, name); !ok {
				t.Errorf("%s: no %s received", service, name)
			}
		}
	}

	// The lobby's log line of the PlayBot call carries the trace.
	found := false
	sc := bufio.NewScanner(bytes.NewReader(svc.lobby.out.Bytes()))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("lobby log line is not JSON: %q", sc.Text())
		}
		if line["rpc"] == "/"+playBot && line["trace_id"] == tr.String() && line["span_id"] == root.SpanID.String() {
			found = true
		}
	}
	if !found {
		t.Errorf("no PlayBot log line with trace_id %s span_id %s", tr, root.SpanID)
	}
}

// findSpan returns a span of name from service, in trace tr unless tr is
// zero.
func findSpan(spans []otelstub.Span, name, service string, tr trace.TraceID) (otelstub.Span, bool) {
	for _, s := range spans {
		if s.Name == name && s.Service == service && (!tr.IsValid() || s.TraceID == tr) {
			return s, true
		}
	}
	return otelstub.Span{}, false
}

// stubDescends reports whether s is ancestor or a descendant of it.
func stubDescends(byID map[trace.SpanID]otelstub.Span, s otelstub.Span, ancestor trace.SpanID) bool {
	for range 64 {
		if s.SpanID == ancestor {
			return true
		}
		p, ok := byID[s.Parent]
		if !ok {
			return false
		}
		s = p
	}
	return false
}
