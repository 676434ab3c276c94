package e2e

import (
	"context"
	"crypto/rand"
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
)

// TestMatchmakingTicketTrace queues two players with FindMatch and checks
// that the pairing — run in the lobby's background, not in either request
// — makes one trace from a matchmaking ticket to the match it creates: the
// matchmaking.pair span continues the first ticket's FindMatch trace and
// links to the second's, and match CreateMatch is in that trace, under
// it. Both tickets' waits are recorded in tabuleiro.lobby.matchmaking.wait.
//
// Not parallel: the pairing span comes from the process-wide
// TracerProvider, which the test installs (this file sorts after
// telemetry_test.go, and the test finishes its match, so that
// TestBotGameTelemetry's absolute check of tabuleiro.match.active holds).
func TestMatchmakingTicketTrace(t *testing.T) {
	spans := tracetest.NewInMemoryExporter()
	reader, mp := meterProvider()
	tels := serviceTelemetry(t, mp, sdktrace.WithSyncer(spans))
	tels["lobby"].SetGlobal()
	s := startStack(t, stackOptions{Telemetry: tels})
	ctx := testContext(t)
	var base metricdata.ResourceMetrics
	if err := reader.Collect(ctx, &base); err != nil {
		t.Fatal(err)
	}

	lobby := lobbyv1.NewLobbyServiceClient(s.client(t, s.lobbyAddr))
	type result struct {
		ticket string
		m      *lobbyv1.Matched
		tok    string
		err    error
	}
	find := func(ctx context.Context, tok string) (r result) {
		r.tok = tok
		st, err := lobby.FindMatch(auth.WithToken(ctx, tok), &lobbyv1.FindMatchRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard"})
		if err != nil {
			r.err = err
			return r
		}
		for {
			m, err := st.Recv()
			switch {
			case errors.Is(err, io.EOF) && r.m != nil:
				return r // the stream ended with OK after matched
			case err != nil:
				r.err = err
				return r
			case m.GetQueued() != nil:
				r.ticket = m.GetQueued().GetTicketId()
			case m.GetMatched() != nil:
				r.m = m.GetMatched()
			}
		}
	}
	ch := make(chan result, 2)
	for i := range 2 {
		tok, _, err := s.issuer.IssuePlayer("mm-"+rand.Text()[:8], "player"+string(rune('a'+i)), true, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		go func() { ch <- find(ctx, tok) }()
	}
	r1, r2 := <-ch, <-ch
	if r1.err != nil || r2.err != nil || r1.m.GetMatchId() == "" || r1.m.GetMatchId() != r2.m.GetMatchId() || r1.m.GetYourSeat() == r2.m.GetYourSeat() {
		t.Fatalf("find match: %+v %+v", r1, r2)
	}
	matchID := r1.m.GetMatchId()

	// Finish the match: the first to move resigns.
	first := r1
	if r2.m.GetYourSeat() == gamev1.Seat_SEAT_FIRST {
		first = r2
	}
	resign(ctx, t, matchv1.NewMatchServiceClient(s.client(t, s.matchAddr)), first.tok, matchID)

	// Wait for the server spans of both FindMatch streams (they end as the
	// streams do) and for the recorder to take the game out of the outbox.
	const findMatch, createMatch = "tabuleiro.lobby.v1.LobbyService/FindMatch", "tabuleiro.match.v1.MatchService/CreateMatch"
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	var all []tracetest.SpanStub
	var finds []tracetest.SpanStub
	for {
		all = spans.GetSpans()
		finds = finds[:0]
		for _, sp := range all {
			if sp.Name == findMatch && serviceOf(sp) == "lobby" && sp.SpanKind == trace.SpanKindServer {
				finds = append(finds, sp)
			}
		}
		var rm metricdata.ResourceMetrics
		if err := reader.Collect(ctx, &rm); err != nil {
			t.Fatal(err)
		}
		if len(finds) == 2 && sumOf(rm, "tabuleiro.match.outbox.written") > sumOf(base, "tabuleiro.match.outbox.written") {
			if got := countOf(rm, "tabuleiro.lobby.matchmaking.wait", nil) - countOf(base, "tabuleiro.lobby.matchmaking.wait", nil); got != 2 {
				t.Errorf("tabuleiro.lobby.matchmaking.wait recorded %v times, want 2 (both tickets)", got)
			}
			if !has(rm, "tabuleiro.lobby.queue.size") {
				t.Error("tabuleiro.lobby.queue.size not recorded")
			}
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("%d FindMatch server spans, or the game never left the outbox", len(finds))
		case <-tick.C:
		}
	}
	if finds[0].SpanContext.TraceID() == finds[1].SpanContext.TraceID() {
		t.Fatalf("both FindMatch calls in trace %s: want a trace per ticket", finds[0].SpanContext.TraceID())
	}
	byID := map[trace.SpanID]tracetest.SpanStub{}
	for _, sp := range all {
		byID[sp.SpanContext.SpanID()] = sp
	}

	// One pairing span, in the trace of one ticket (A), linked to the
	// other's (B).
	var pairs []tracetest.SpanStub
	for _, sp := range all {
		if sp.Name == "matchmaking.pair" {
			pairs = append(pairs, sp)
		}
	}
	if len(pairs) != 1 {
		t.Fatalf("%d matchmaking.pair spans, want 1", len(pairs))
	}
	pair := pairs[0]
	a, b := finds[0], finds[1]
	if pair.SpanContext.TraceID() == b.SpanContext.TraceID() {
		a, b = b, a
	}
	if serviceOf(pair) != "lobby" || pair.SpanContext.TraceID() != a.SpanContext.TraceID() || !pair.Parent.IsRemote() {
		t.Fatalf("matchmaking.pair in trace %s (parent remote %v, service %q), want a lobby span continuing ticket trace %s or %s",
			pair.SpanContext.TraceID(), pair.Parent.IsRemote(), serviceOf(pair), a.SpanContext.TraceID(), b.SpanContext.TraceID())
	}
	if parent, ok := byID[pair.Parent.SpanID()]; !ok || !descends(byID, parent, a.SpanContext.SpanID()) {
		t.Errorf("matchmaking.pair's parent %v is not within ticket A's FindMatch %v", pair.Parent.SpanID(), a.SpanContext.SpanID())
	}
	if len(pair.Links) != 1 || pair.Links[0].SpanContext.TraceID() != b.SpanContext.TraceID() {
		t.Fatalf("matchmaking.pair links %v, want one to ticket B's trace %s", pair.Links, b.SpanContext.TraceID())
	}
	if linked, ok := byID[pair.Links[0].SpanContext.SpanID()]; !ok || !descends(byID, linked, b.SpanContext.SpanID()) {
		t.Errorf("matchmaking.pair's link %v is not within ticket B's FindMatch %v", pair.Links[0].SpanContext.SpanID(), b.SpanContext.SpanID())
	}
	var tickets []string
	for _, kv := range pair.Attributes {
		if kv.Key == "tabuleiro.tickets" {
			tickets = kv.Value.AsStringSlice()
		}
	}
	slices.Sort(tickets)
	want := []string{r1.ticket, r2.ticket}
	slices.Sort(want)
	if !slices.Equal(tickets, want) {
		t.Errorf("matchmaking.pair tickets %v, want %v", tickets, want)
	}

	// CreateMatch of the match the pair got: in trace A, the child of a
	// lobby client span under the pairing span; none in trace B.
	var creates []tracetest.SpanStub
	for _, sp := range all {
		if sp.Name == createMatch && serviceOf(sp) == "match" && sp.SpanKind == trace.SpanKindServer {
			creates = append(creates, sp)
		}
	}
	if len(creates) != 1 {
		t.Fatalf("%d CreateMatch server spans, want 1", len(creates))
	}
	create := creates[0]
	cl, ok := byID[create.Parent.SpanID()]
	if create.SpanContext.TraceID() != a.SpanContext.TraceID() || !ok || serviceOf(cl) != "lobby" || cl.SpanKind != trace.SpanKindClient {
		t.Fatalf("CreateMatch in trace %s with parent %q of %q, want trace %s under a lobby client span", create.SpanContext.TraceID(), cl.Name, serviceOf(cl), a.SpanContext.TraceID())
	}
	if !descends(byID, cl, pair.SpanContext.SpanID()) {
		t.Error("CreateMatch's client span does not descend from matchmaking.pair")
	}
}

// resign joins matchID as the holder of tok, resigns and waits for the
// game's end.
func resign(ctx context.Context, t *testing.T, match matchv1.MatchServiceClient, tok, matchID string) {
	t.Helper()
	stream, err := match.Play(auth.WithToken(ctx, tok))
	if err != nil {
		t.Fatalf("Play: %v", err)
	}
	for _, r := range []*matchv1.PlayRequest{
		{Action: &matchv1.PlayRequest_Join{Join: &matchv1.JoinMatch{MatchId: matchID}}},
		{Action: &matchv1.PlayRequest_Resign{Resign: &matchv1.Resign{}}},
	} {
		if err := stream.Send(r); err != nil {
			t.Fatalf("send %v: %v", r, err)
		}
	}
	for {
		m, err := stream.Recv()
		if err != nil {
			t.Fatalf("recv before the end of %s: %v", matchID, err)
		}
		if m.GetActionRejected() != nil {
			t.Fatalf("resign rejected: %v", m)
		}
		if m.GetEvent().GetGameEnded() != nil {
			return
		}
	}
}
