package grpcserve_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"maps"
	"math/big"
	"net"
	"net/http"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"connectrpc.com/connect"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
	"tabuleiro.dev/pkg/platform/grpcserve/rpcfuzz"
	"tabuleiro.dev/pkg/platform/reason"
	"tabuleiro.dev/pkg/platform/telemetry"
)

// streamingMatch serves Watch: two messages for a signed-in caller.
type streamingMatch struct {
	matchv1.UnimplementedMatchServiceServer
}

func (streamingMatch) Watch(req *matchv1.WatchRequest, s grpc.ServerStreamingServer[matchv1.WatchResponse]) error {
	p, ok := auth.FromContext(s.Context())
	if !ok {
		return status.Error(codes.Unauthenticated, "no principal")
	}
	if req.GetMatchId() == "" {
		return reason.Error(codes.InvalidArgument, reason.InvalidRequest, "match_id is required", nil)
	}
	for i := range 2 {
		if err := s.Send(&matchv1.WatchResponse{Message: &matchv1.WatchResponse_Event{Event: &matchv1.MatchEvent{Seq: int64(i + 1)}}}); err != nil {
			return err
		}
	}
	return s.Send(&matchv1.WatchResponse{Message: &matchv1.WatchResponse_Drain{Drain: &matchv1.Drain{Reason: p.Subject}}})
}

// webFixture is a server with recorded telemetry, for one protocol.
type webFixture struct {
	srv     *grpcservetest.Server
	issuer  *auth.Issuer
	spans   *tracetest.InMemoryExporter
	metrics *sdkmetric.ManualReader
	logs    *syncBuffer
}

func startWeb(t *testing.T, opts grpcserve.Options) *webFixture {
	t.Helper()
	key, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	iss, err := auth.NewIssuer(key)
	if err != nil {
		t.Fatal(err)
	}
	ver, err := auth.NewVerifier(key)
	if err != nil {
		t.Fatal(err)
	}
	f := &webFixture{issuer: iss, spans: tracetest.NewInMemoryExporter(), metrics: sdkmetric.NewManualReader(), logs: &syncBuffer{}}
	opts.Telemetry = &telemetry.Telemetry{
		TracerProvider: sdktrace.NewTracerProvider(sdktrace.WithSyncer(f.spans)),
		MeterProvider:  sdkmetric.NewMeterProvider(sdkmetric.WithReader(f.metrics)),
		Propagator:     propagation.TraceContext{},
		TracesEnabled:  true, MetricsEnabled: true,
	}
	opts.Auth = auth.NewInterceptor(ver, policy)
	opts.Logger = slog.New(slog.NewJSONHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	f.srv = grpcservetest.Start(t, opts, func(s *grpc.Server) {
		lobbyv1.RegisterLobbyServiceServer(s, fakeLobby{})
		matchv1.RegisterMatchServiceServer(s, streamingMatch{})
		botv1.RegisterBotServiceServer(s, fakeBot{})
	})
	return f
}

// protocol calls the fixture's RPCs over one wire protocol.
type protocol struct {
	name string
	// getStats, signIn, selectPly, listGames and watch call the RPC
	// with token ("" for none) and return the status code, the error's
	// message and the result.
	getStats  func(ctx context.Context, token string) (*lobbyv1.GetStatsResponse, error)
	signIn    func(ctx context.Context) error
	selectPly func(ctx context.Context, token string) error
	listGames func(ctx context.Context, token string) error
	watch     func(ctx context.Context, token, matchID string) ([]*matchv1.WatchResponse, error)
}

func grpcProtocol(f *webFixture, t *testing.T) protocol {
	conn := f.srv.Conn
	lobby, bot, match := lobbyv1.NewLobbyServiceClient(conn), botv1.NewBotServiceClient(conn), matchv1.NewMatchServiceClient(conn)
	with := func(ctx context.Context, token string) context.Context {
		if token == "" {
			return ctx
		}
		return auth.WithToken(ctx, token)
	}
	return protocol{
		name: "grpc",
		getStats: func(ctx context.Context, token string) (*lobbyv1.GetStatsResponse, error) {
			return lobby.GetStats(with(ctx, token), &lobbyv1.GetStatsRequest{})
		},
		signIn: func(ctx context.Context) error {
			_, err := lobby.SignInGuest(ctx, &lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
			return err
		},
		selectPly: func(ctx context.Context, token string) error {
			_, err := bot.SelectPly(with(ctx, token), &botv1.SelectPlyRequest{})
			return err
		},
		listGames: func(ctx context.Context, token string) error {
			_, err := lobby.ListGames(with(ctx, token), &lobbyv1.ListGamesRequest{})
			return err
		},
		watch: func(ctx context.Context, token, id string) ([]*matchv1.WatchResponse, error) {
			s, err := match.Watch(with(ctx, token), &matchv1.WatchRequest{MatchId: id})
			if err != nil {
				return nil, err
			}
			var out []*matchv1.WatchResponse
			for {
				m, err := s.Recv()
				if errors.Is(err, io.EOF) {
					return out, nil
				}
				if err != nil {
					return out, err
				}
				out = append(out, m)
			}
		},
	}
}

// connectProtocol calls over HTTP/1.1 with connect-go: the Connect
// protocol (binary or JSON) or gRPC-Web, as a browser does.
func connectProtocol(name string, f *webFixture, t *testing.T, opts ...connect.ClientOption) protocol {
	hc := f.srv.HTTPClient(t)
	url := func(method string) string { return grpcservetest.BaseURL + method }
	getStats := connect.NewClient[lobbyv1.GetStatsRequest, lobbyv1.GetStatsResponse](hc, url(lobbyv1.LobbyService_GetStats_FullMethodName), opts...)
	signIn := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](hc, url(lobbyv1.LobbyService_SignInGuest_FullMethodName), opts...)
	selectPly := connect.NewClient[botv1.SelectPlyRequest, botv1.SelectPlyResponse](hc, url(botv1.BotService_SelectPly_FullMethodName), opts...)
	listGames := connect.NewClient[lobbyv1.ListGamesRequest, lobbyv1.ListGamesResponse](hc, url(lobbyv1.LobbyService_ListGames_FullMethodName), opts...)
	watch := connect.NewClient[matchv1.WatchRequest, matchv1.WatchResponse](hc, url(matchv1.MatchService_Watch_FullMethodName), opts...)
	req := func(msg any, token string) {
		if token == "" {
			return
		}
		msg.(interface{ Header() http.Header }).Header().Set("Authorization", "Bearer "+token)
	}
	return protocol{
		name: name,
		getStats: func(ctx context.Context, token string) (*lobbyv1.GetStatsResponse, error) {
			r := connect.NewRequest(&lobbyv1.GetStatsRequest{})
			req(r, token)
			resp, err := getStats.CallUnary(ctx, r)
			if err != nil {
				return nil, err
			}
			return resp.Msg, nil
		},
		signIn: func(ctx context.Context) error {
			_, err := signIn.CallUnary(ctx, connect.NewRequest(&lobbyv1.SignInGuestRequest{DisplayName: "Ana"}))
			return err
		},
		selectPly: func(ctx context.Context, token string) error {
			r := connect.NewRequest(&botv1.SelectPlyRequest{})
			req(r, token)
			_, err := selectPly.CallUnary(ctx, r)
			return err
		},
		listGames: func(ctx context.Context, token string) error {
			r := connect.NewRequest(&lobbyv1.ListGamesRequest{})
			req(r, token)
			_, err := listGames.CallUnary(ctx, r)
			return err
		},
		watch: func(ctx context.Context, token, id string) ([]*matchv1.WatchResponse, error) {
			r := connect.NewRequest(&matchv1.WatchRequest{MatchId: id})
			req(r, token)
			s, err := watch.CallServerStream(ctx, r)
			if err != nil {
				return nil, err
			}
			defer s.Close()
			var out []*matchv1.WatchResponse
			for s.Receive() {
				out = append(out, s.Msg())
			}
			return out, s.Err()
		},
	}
}

// code is the status code of err from either client library.
func code(err error) codes.Code {
	if err == nil {
		return codes.OK
	}
	var ce *connect.Error
	if errors.As(err, &ce) {
		return codes.Code(ce.Code())
	}
	return status.Code(err)
}

func message(err error) string {
	var ce *connect.Error
	if errors.As(err, &ce) {
		return ce.Message()
	}
	return status.Convert(err).Message()
}

// TestEveryProtocol: authentication, status codes, streams, logs and
// telemetry are the same over gRPC, gRPC-Web and Connect (binary and
// JSON), since every call runs through the same grpc.Server.
func TestEveryProtocol(t *testing.T) {
	t.Parallel()
	for _, mk := range []func(*webFixture, *testing.T) protocol{
		grpcProtocol,
		func(f *webFixture, t *testing.T) protocol { return connectProtocol("connect", f, t) },
		func(f *webFixture, t *testing.T) protocol {
			return connectProtocol("connect-json", f, t, connect.WithProtoJSON())
		},
		func(f *webFixture, t *testing.T) protocol {
			return connectProtocol("grpc-web", f, t, connect.WithGRPCWeb())
		},
	} {
		f := startWeb(t, grpcserve.Options{ShutdownTimeout: time.Minute})
		p := mk(f, t)
		t.Run(p.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			valid, _, err := f.issuer.IssuePlayer("p-1", "Ana", true, time.Hour)
			if err != nil {
				t.Fatal(err)
			}
			otherKey, _ := auth.GenerateKey()
			forger, _ := auth.NewIssuer(otherKey)
			forged, _, _ := forger.IssuePlayer("p-1", "Ana", true, time.Hour)

			for _, tc := range []struct {
				name, token string
				want        codes.Code
			}{
				{"missing token", "", codes.Unauthenticated},
				{"forged token", forged, codes.Unauthenticated},
				{"garbage token", "not.a.token", codes.Unauthenticated},
				{"valid token", valid, codes.OK},
			} {
				resp, err := p.getStats(ctx, tc.token)
				if got := code(err); got != tc.want {
					t.Errorf("GetStats with %s: code %v (%v), want %v", tc.name, got, err, tc.want)
				}
				if err == nil && (resp.GetPlayerId() != "p-1" || resp.GetDisplayName() != "Ana") {
					t.Errorf("GetStats = %q %q, want p-1 Ana", resp.GetPlayerId(), resp.GetDisplayName())
				}
			}
			if err := p.signIn(ctx); err != nil {
				t.Errorf("SignInGuest (public): %v", err)
			}
			if err := p.selectPly(ctx, valid); code(err) != codes.PermissionDenied {
				t.Errorf("SelectPly with a player token: %v, want PermissionDenied", err)
			}
			err = p.listGames(ctx, valid)
			if code(err) != codes.Internal || strings.Contains(message(err), secret) {
				t.Errorf("ListGames (a raw server error): %v, want Internal without its detail", err)
			}

			msgs, err := p.watch(ctx, valid, "m-1")
			if err != nil || len(msgs) != 3 || msgs[1].GetEvent().GetSeq() != 2 || msgs[2].GetDrain().GetReason() != "p-1" {
				t.Errorf("Watch = %v, %v; want events 1, 2 and a drain naming p-1", msgs, err)
			}
			if _, err := p.watch(ctx, "", "m-1"); code(err) != codes.Unauthenticated {
				t.Errorf("Watch without a token: %v, want Unauthenticated", err)
			}
			if _, err := p.watch(ctx, valid, ""); code(err) != codes.InvalidArgument {
				t.Errorf("Watch without a match: %v, want InvalidArgument", err)
			}

			// Telemetry: a span per call, named by the method, and the
			// server duration metric for it.
			var names []string
			for _, s := range f.spans.GetSpans() {
				names = append(names, s.Name)
			}
			for _, want := range []string{
				"tabuleiro.lobby.v1.LobbyService/GetStats",
				"tabuleiro.lobby.v1.LobbyService/SignInGuest",
				"tabuleiro.match.v1.MatchService/Watch",
			} {
				if n := count(names, want); n == 0 {
					t.Errorf("no span %s; spans: %v", want, names)
				}
			}
			if n := count(names, "tabuleiro.lobby.v1.LobbyService/GetStats"); n != 4 {
				t.Errorf("%d GetStats spans, want 4 (one per call)", n)
			}
			var rm metricdata.ResourceMetrics
			if err := f.metrics.Collect(ctx, &rm); err != nil {
				t.Fatal(err)
			}
			if !hasServerMetric(rm, "tabuleiro.lobby.v1.LobbyService/GetStats") {
				t.Errorf("no rpc.server metric for GetStats: %+v", rm.ScopeMetrics)
			}
			// Logs: one line per call, with the status code.
			logs := f.logs.String()
			if !strings.Contains(logs, `"rpc":"/tabuleiro.lobby.v1.LobbyService/GetStats","code":"Unauthenticated"`) {
				t.Errorf("no log line for the refused GetStats:\n%s", logs)
			}
		})
	}
}

func count(names []string, want string) int {
	n := 0
	for _, s := range names {
		if s == want {
			n++
		}
	}
	return n
}

// hasServerMetric reports whether rm holds an rpc.server.* metric with a
// data point for method.
func hasServerMetric(rm metricdata.ResourceMetrics, method string) bool {
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if !strings.HasPrefix(m.Name, "rpc.server.") {
				continue
			}
			var sets []attribute.Set
			switch d := m.Data.(type) {
			case metricdata.Histogram[float64]:
				for _, p := range d.DataPoints {
					sets = append(sets, p.Attributes)
				}
			case metricdata.Histogram[int64]:
				for _, p := range d.DataPoints {
					sets = append(sets, p.Attributes)
				}
			case metricdata.Sum[int64]:
				for _, p := range d.DataPoints {
					sets = append(sets, p.Attributes)
				}
			}
			for _, s := range sets {
				if v, ok := s.Value("rpc.method"); ok && strings.HasSuffix(v.AsString(), method) {
					return true
				}
			}
		}
	}
	return false
}

// TestCORS: with no origins configured a browser may only call from the
// same origin (no CORS headers); configured origins get preflights and the
// headers Connect and gRPC-Web need, and others get nothing.
func TestCORS(t *testing.T) {
	t.Parallel()
	preflight := func(t *testing.T, f *webFixture, origin string) *http.Response {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodOptions,
			grpcservetest.BaseURL+lobbyv1.LobbyService_GetStats_FullMethodName, nil)
		req.Header.Set("Origin", origin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "authorization,connect-protocol-version,content-type,tabuleiro-match-id") // sorted, as browsers send it
		resp, err := f.srv.HTTPClient(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp
	}
	t.Run("default same-origin only", func(t *testing.T) {
		t.Parallel()
		f := startWeb(t, grpcserve.Options{})
		if got := preflight(t, f, "https://evil.example").Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("preflight allowed origin %q with no origins configured", got)
		}
	})
	t.Run("configured origins", func(t *testing.T) {
		t.Parallel()
		f := startWeb(t, grpcserve.Options{CORSOrigins: []string{"https://play.example"}})
		resp := preflight(t, f, "https://play.example")
		if got := resp.Header.Get("Access-Control-Allow-Origin"); got != "https://play.example" {
			t.Errorf("preflight from an allowed origin: Access-Control-Allow-Origin %q", got)
		}
		allowed := strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers"))
		for _, h := range []string{"authorization", "content-type", "connect-protocol-version", "tabuleiro-match-id"} {
			if !strings.Contains(allowed, h) {
				t.Errorf("preflight allows headers %q, not %s", allowed, h)
			}
		}
		if got := preflight(t, f, "https://evil.example").Header.Get("Access-Control-Allow-Origin"); got != "" {
			t.Errorf("preflight from another origin allowed: %q", got)
		}
		// An actual call exposes the status headers to the page.
		c := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](f.srv.HTTPClient(t),
			grpcservetest.BaseURL+lobbyv1.LobbyService_SignInGuest_FullMethodName, connect.WithGRPCWeb())
		r := connect.NewRequest(&lobbyv1.SignInGuestRequest{DisplayName: "Ana"})
		r.Header().Set("Origin", "https://play.example")
		res, err := c.CallUnary(t.Context(), r)
		if err != nil {
			t.Fatal(err)
		}
		if exp := strings.ToLower(res.Header().Get("Access-Control-Expose-Headers")); !strings.Contains(exp, "grpc-status") {
			t.Errorf("Access-Control-Expose-Headers = %q, want grpc-status among them", exp)
		}
	})
}

func TestParseOrigins(t *testing.T) {
	t.Parallel()
	got, err := grpcserve.ParseOrigins(" https://a.example, http://127.0.0.1:5173 ,*,")
	if want := []string{"https://a.example", "http://127.0.0.1:5173", "*"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("ParseOrigins = %q, %v; want %q", got, err, want)
	}
	if got, err := grpcserve.ParseOrigins(""); err != nil || len(got) != 0 {
		t.Errorf("ParseOrigins(\"\") = %q, %v; want none", got, err)
	}
	for _, bad := range []string{"a.example", "https://a.example/path", "ftp://a.example", "https://"} {
		if _, err := grpcserve.ParseOrigins(bad); err == nil {
			t.Errorf("ParseOrigins(%q) accepted", bad)
		}
	}
}

// TestHTTPHandlerServesOtherPaths: paths that are not RPCs go to the extra
// handler; RPC paths do not.
func TestHTTPHandlerServesOtherPaths(t *testing.T) {
	t.Parallel()
	extra := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		_, _ = io.WriteString(w, "page "+r.URL.Path)
	})
	f := startWeb(t, grpcserve.Options{HTTPHandler: extra})
	hc := f.srv.HTTPClient(t)
	get := func(path string) (int, string) {
		resp, err := hc.Get(grpcservetest.BaseURL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("/"); code != 200 || body != "page /" {
		t.Errorf("GET / = %d %q", code, body)
	}
	if code, body := get("/assets/app.js"); code != 200 || body != "page /assets/app.js" {
		t.Errorf("GET /assets/app.js = %d %q", code, body)
	}
	// An RPC path is the transcoder's, not the page handler's.
	c := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](hc,
		grpcservetest.BaseURL+lobbyv1.LobbyService_SignInGuest_FullMethodName)
	if res, err := c.CallUnary(t.Context(), connect.NewRequest(&lobbyv1.SignInGuestRequest{DisplayName: "Ana"})); err != nil || res.Msg.GetPlayerId() != "p-new" {
		t.Errorf("SignInGuest over Connect next to a page handler = %v, %v", res, err)
	}
}

// runTCP runs opts on a loopback port and returns its address.
func runTCP(t *testing.T, opts grpcserve.Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	opts.Addr = "127.0.0.1:0"
	opts.OnListen = func(a net.Addr) { addrs <- a.String() }
	go func() {
		done <- grpcserve.Run(ctx, opts, func(s *grpc.Server) {
			lobbyv1.RegisterLobbyServiceServer(s, fakeLobby{})
		})
	}()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	select {
	case a := <-addrs:
		return a
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	return ""
}

// TestOnePortEveryProtocol: over real TCP, native gRPC (HTTP/2 prior
// knowledge), Connect and gRPC-Web (HTTP/1.1) share the port, plaintext
// and with TLS (where HTTP/2 carries all three).
func TestOnePortEveryProtocol(t *testing.T) {
	t.Parallel()
	signIn := func(t *testing.T, hc *http.Client, base string, opts ...connect.ClientOption) {
		t.Helper()
		c := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](hc,
			base+lobbyv1.LobbyService_SignInGuest_FullMethodName, opts...)
		res, err := c.CallUnary(t.Context(), connect.NewRequest(&lobbyv1.SignInGuestRequest{DisplayName: "Ana"}))
		if err != nil || res.Msg.GetPlayerId() != "p-new" {
			t.Errorf("SignInGuest = %v, %v", res, err)
		}
	}
	health := func(t *testing.T, addr string, creds credentials.TransportCredentials) {
		t.Helper()
		conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(creds))
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if _, err := lobbyv1.NewLobbyServiceClient(conn).SignInGuest(t.Context(), &lobbyv1.SignInGuestRequest{DisplayName: "Ana"}); err != nil {
			t.Errorf("SignInGuest over gRPC: %v", err)
		}
		resp, err := healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{})
		if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health over gRPC = %v, %v", resp.GetStatus(), err)
		}
	}
	t.Run("plaintext", func(t *testing.T) {
		t.Parallel()
		addr := runTCP(t, grpcserve.Options{})
		health(t, addr, insecure.NewCredentials())
		hc := &http.Client{}
		signIn(t, hc, "http://"+addr)
		signIn(t, hc, "http://"+addr, connect.WithGRPCWeb())
		hc.CloseIdleConnections()
	})
	t.Run("tls", func(t *testing.T) {
		t.Parallel()
		cert, pool := selfSigned(t)
		addr := runTCP(t, grpcserve.Options{TLS: &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}})
		health(t, addr, credentials.NewTLS(&tls.Config{RootCAs: pool, ServerName: "localhost"}))
		tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, ServerName: "localhost"}, ForceAttemptHTTP2: true}
		hc := &http.Client{Transport: tr}
		signIn(t, hc, "https://"+addr)
		signIn(t, hc, "https://"+addr, connect.WithGRPCWeb())
		signIn(t, hc, "https://"+addr, connect.WithGRPC()) // gRPC over net/http's HTTP/2
		tr.CloseIdleConnections()
	})
}

func selfSigned(t *testing.T) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "localhost"}, DNSNames: []string{"localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(c)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: c}, pool
}

// TestConnectJSONLeavesOutZeroFields: a Connect JSON response carries only
// the fields that are set (canonical proto3 JSON): no zero enum (a
// Quoridor ply's "revealed":"BANQI_PIECE_UNSPECIFIED"), no empty list.
// The Connect-Protocol-Version header is optional in the Connect protocol
// (plain curl, as Connect's own documentation calls a service, sends
// none): the call is answered with it or without it, never taken for a
// page (405 from the web client's files).
func TestConnectJSONLeavesOutZeroFields(t *testing.T) {
	t.Parallel()
	// The web client's files behind, as in tabuleiro serve.
	f := startWeb(t, grpcserve.Options{HTTPHandler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	})})
	token, _, err := f.issuer.IssuePlayer("p-1", "Ana", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, contentType, version string }{
		{"with the version header", "application/json", "1"},
		{"without it", "application/json", ""},
		{"charset, without it", "application/json; charset=utf-8", ""},
	} {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost,
			grpcservetest.BaseURL+lobbyv1.LobbyService_GetStats_FullMethodName, strings.NewReader("{}"))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", tc.contentType)
		if tc.version != "" {
			req.Header.Set("Connect-Protocol-Version", tc.version)
		}
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := f.srv.HTTPClient(t).Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		// Compared as JSON: protojson varies its white space on purpose.
		var got map[string]any
		if err := json.Unmarshal(b, &got); resp.StatusCode != http.StatusOK || err != nil ||
			!maps.Equal(got, map[string]any{"playerId": "p-1", "displayName": "Ana"}) {
			t.Errorf("%s: GetStats over Connect JSON = %d %s, want 200 with only the fields that are set", tc.name, resp.StatusCode, b)
		}
	}
}

// A gzip request body that inflates past MaxWebMessageBytes (a
// decompression bomb: 256 KiB that inflate to 256 MiB) is refused with
// RESOURCE_EXHAUSTED once the limit is passed, not inflated whole in
// memory (the transcoder's own gzip inflated every byte, 700 MB of
// memory for a 200 KB body, and answered INTERNAL).
// Not parallel: it counts the process's allocations.
func TestConnectGzipBombRefused(t *testing.T) {
	f := startWeb(t, grpcserve.Options{})
	token, _, err := f.issuer.IssuePlayer("p-1", "Ana", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&body, gzip.BestSpeed)
	_, _ = zw.Write([]byte(`{"playerId":"`))
	chunk := bytes.Repeat([]byte("a"), 1<<20)
	for range 96 { // 96 MiB inflated: past the 64 MiB allowed below
		// (compressing more only slows the test, ten times under -race)
		_, _ = zw.Write(chunk)
	}
	_, _ = zw.Write([]byte(`"}`))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost,
		grpcservetest.BaseURL+lobbyv1.LobbyService_GetStats_FullMethodName, &body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Content-Encoding", "gzip")
	req.Header.Set("Connect-Protocol-Version", "1")
	req.Header.Set("Authorization", "Bearer "+token)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	resp, err := f.srv.HTTPClient(t).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	runtime.ReadMemStats(&after)
	if d := after.TotalAlloc - before.TotalAlloc; d > 64<<20 {
		t.Errorf("the request allocated %d MiB: the body was inflated past the limit", d>>20)
	}
	var got struct{ Code, Message string }
	if err := json.Unmarshal(b, &got); err != nil || got.Code != "resource_exhausted" {
		t.Errorf("gzip bomb over Connect = %d %s, want resource_exhausted", resp.StatusCode, b)
	}
}

// Every malformed browser request is INVALID_ARGUMENT with a reason, in
// its own protocol, where it was INTERNAL or UNKNOWN (issue 43): the
// framings of gRPC-Web and Connect, on a unary call and on Watch.
func TestMalformedWebRequestsInvalidArgument(t *testing.T) {
	f := startWeb(t, grpcserve.Options{})
	token, _, err := f.issuer.IssuePlayer("p-1", "Ana", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	frame := func(flags byte, msg []byte) []byte {
		b := []byte{flags, 0, 0, 0, 0}
		binary.BigEndian.PutUint32(b[1:], uint32(len(msg)))
		return append(b, msg...)
	}
	watchMsg := []byte{0x0a, 0x01, 'm'} // match_id "m"
	getStats, watch := lobbyv1.LobbyService_GetStats_FullMethodName, matchv1.MatchService_Watch_FullMethodName
	tests := []struct {
		name, path, contentType string
		headers                 map[string]string
		body                    []byte
	}{
		{"connect JSON empty body", getStats, "application/json", nil, nil},
		{"connect gzip on a plain body", getStats, "application/json", map[string]string{"Content-Encoding": "gzip"}, []byte(`{}`)},
		{"grpc-web compressed flag without encoding", getStats, "application/grpc-web+proto", nil, frame(1, nil)},
		{"grpc-web two messages on a unary call", getStats, "application/grpc-web+proto", nil, append(frame(0, nil), frame(0, nil)...)},
		{"grpc-web empty unary body", getStats, "application/grpc-web+proto", nil, nil},
		{"grpc-web frame cut short", getStats, "application/grpc-web+proto", nil, []byte{0, 0, 0, 0, 9, 1}},
		{"grpc-web two messages on Watch", watch, "application/grpc-web+proto", nil, append(frame(0, watchMsg), frame(0, watchMsg)...)},
		{"connect stream two messages on Watch", watch, "application/connect+proto", nil, append(frame(0, watchMsg), frame(0, watchMsg)...)},
		{"connect stream compressed flag without encoding", watch, "application/connect+proto", nil, frame(1, watchMsg)},
		{"grpc-web empty Watch", watch, "application/grpc-web+proto", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, grpcservetest.BaseURL+tt.path, bytes.NewReader(tt.body))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", tt.contentType)
			req.Header.Set("Authorization", "Bearer "+token)
			if !strings.HasPrefix(tt.contentType, "application/grpc-web") {
				req.Header.Set("Connect-Protocol-Version", "1")
			}
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			resp, err := f.srv.HTTPClient(t).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			framing := rpcfuzz.Connect
			if strings.HasPrefix(tt.contentType, "application/grpc-web") {
				framing = rpcfuzz.GRPCWeb
			}
			st, err := rpcfuzz.WebStatus(resp, framing, strings.HasPrefix(tt.contentType, "application/connect+"))
			if err != nil {
				t.Fatalf("answer %d: %v", resp.StatusCode, err)
			}
			info, ok := reason.Of(st)
			if st.Code() != codes.InvalidArgument || st.Message() == "" || !ok || info.GetReason() != reason.InvalidRequest {
				t.Errorf("answer %d: %v (ErrorInfo %v), want INVALID_ARGUMENT with a message and the INVALID_REQUEST reason", resp.StatusCode, st.Err(), info)
			}
		})
	}
}
