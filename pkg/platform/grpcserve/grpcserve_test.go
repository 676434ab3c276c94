package grpcserve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
)

// fakeLobby answers SignInGuest (public) and GetStats (the caller's id), and
// panics or fails raw in ListRooms and ListGames.
type fakeLobby struct {
	lobbyv1.UnimplementedLobbyServiceServer
}

func (fakeLobby) SignInGuest(context.Context, *lobbyv1.SignInGuestRequest) (*lobbyv1.SignInGuestResponse, error) {
	return &lobbyv1.SignInGuestResponse{PlayerId: "p-new"}, nil
}

func (fakeLobby) GetStats(ctx context.Context, _ *lobbyv1.GetStatsRequest) (*lobbyv1.GetStatsResponse, error) {
	p, ok := auth.FromContext(ctx)
	if !ok {
		return nil, status.Error(codes.Unauthenticated, "no principal")
	}
	return &lobbyv1.GetStatsResponse{PlayerId: p.Subject, DisplayName: p.DisplayName}, nil
}

const secret = "secret panic text from the database"

func (fakeLobby) ListRooms(context.Context, *lobbyv1.ListRoomsRequest) (*lobbyv1.ListRoomsResponse, error) {
	panic(secret)
}

func (fakeLobby) ListGames(context.Context, *lobbyv1.ListGamesRequest) (*lobbyv1.ListGamesResponse, error) {
	return nil, errors.New(secret)
}

func (fakeLobby) FindMatch(*lobbyv1.FindMatchRequest, grpc.ServerStreamingServer[lobbyv1.FindMatchResponse]) error {
	panic(secret)
}

// fakeMatch blocks GetMatch until released, to test the drain.
type fakeMatch struct {
	matchv1.UnimplementedMatchServiceServer
	started chan struct{}
	release chan struct{}
}

func (m *fakeMatch) GetMatch(ctx context.Context, req *matchv1.GetMatchRequest) (*matchv1.GetMatchResponse, error) {
	close(m.started)
	select {
	case <-m.release:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	return &matchv1.GetMatchResponse{Match: &matchv1.Match{MatchId: req.GetMatchId()}}, nil
}

type fakeBot struct {
	botv1.UnimplementedBotServiceServer
}

func (fakeBot) SelectPly(context.Context, *botv1.SelectPlyRequest) (*botv1.SelectPlyResponse, error) {
	return &botv1.SelectPlyResponse{Notation: "e2", PlyNumber: 1}, nil
}

// syncBuffer is a log sink that the server writes while the test reads.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type fixture struct {
	srv    *grpcservetest.Server
	match  *fakeMatch
	issuer *auth.Issuer
	key    []byte
	logs   *syncBuffer
}

func (f *fixture) keyOf(*testing.T) []byte { return f.key }

func metadataWith(ctx context.Context, header string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", header)
}

var policy = auth.Policy{
	Public:      []string{lobbyv1.LobbyService_SignInGuest_FullMethodName},
	ServiceOnly: []string{"/" + botv1.BotService_ServiceDesc.ServiceName + "/"},
}

func start(t *testing.T, timeout time.Duration) *fixture {
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
	f := &fixture{
		match:  &fakeMatch{started: make(chan struct{}), release: make(chan struct{})},
		issuer: iss,
		key:    key,
		logs:   &syncBuffer{},
	}
	f.srv = grpcservetest.Start(t, grpcserve.Options{
		ShutdownTimeout: timeout,
		Logger:          slog.New(slog.NewJSONHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug})),
		Auth:            auth.NewInterceptor(ver, policy),
	}, func(s *grpc.Server) {
		lobbyv1.RegisterLobbyServiceServer(s, fakeLobby{})
		matchv1.RegisterMatchServiceServer(s, f.match)
		botv1.RegisterBotServiceServer(s, fakeBot{})
	})
	return f
}

func (f *fixture) playerToken(t *testing.T) string {
	t.Helper()
	tok, _, err := f.issuer.IssuePlayer("p-1", "Ana", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

var ourServices = []string{
	"tabuleiro.bot.v1.BotService",
	"tabuleiro.lobby.v1.LobbyService",
	"tabuleiro.match.v1.MatchService",
}

func TestHealthServingForEveryService(t *testing.T) {
	t.Parallel()
	f := start(t, time.Minute)
	hc := healthpb.NewHealthClient(f.srv.Conn)
	for _, name := range append([]string{"", "grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection"}, ourServices...) {
		resp, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{Service: name})
		if err != nil {
			t.Fatalf("health check %q: %v", name, err)
		}
		if got := resp.GetStatus(); got != healthpb.HealthCheckResponse_SERVING {
			t.Errorf("health of %q = %v, want SERVING", name, got)
		}
	}
	_, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{Service: "tabuleiro.nope.v1.NopeService"})
	if got := status.Code(err); got != codes.NotFound {
		t.Errorf("health of an unregistered service: code %v, want NotFound", got)
	}
}

func TestReflectionListsEveryService(t *testing.T) {
	t.Parallel()
	f := start(t, time.Minute)
	stream, err := reflectionpb.NewServerReflectionClient(f.srv.Conn).ServerReflectionInfo(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{},
	}); err != nil {
		t.Fatal(err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		got = append(got, s.GetName())
	}
	want := append([]string{
		"grpc.health.v1.Health",
		"grpc.reflection.v1.ServerReflection",
		"grpc.reflection.v1alpha.ServerReflection",
	}, ourServices...)
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("reflection services:\n got %v\nwant %v", got, want)
	}

	// A client (grpcurl, buf curl) can resolve the methods' types.
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_FileContainingSymbol{
			FileContainingSymbol: "tabuleiro.match.v1.MatchService",
		},
	}); err != nil {
		t.Fatal(err)
	}
	resp, err = stream.Recv()
	if err != nil {
		t.Fatal(err)
	}
	if n := len(resp.GetFileDescriptorResponse().GetFileDescriptorProto()); n == 0 {
		t.Errorf("no file descriptors for MatchService: %v", resp.GetErrorResponse())
	}
}

func TestAuthentication(t *testing.T) {
	t.Parallel()
	f := start(t, time.Minute)
	otherKey, err := auth.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	forger, err := auth.NewIssuer(otherKey)
	if err != nil {
		t.Fatal(err)
	}
	forged, _, err := forger.IssuePlayer("p-1", "Ana", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	past, err := auth.NewIssuer(f.keyOf(t), auth.WithClock(func() time.Time { return time.Now().Add(-2 * time.Hour) }))
	if err != nil {
		t.Fatal(err)
	}
	expired, _, err := past.IssuePlayer("p-1", "Ana", true, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	valid := f.playerToken(t)
	service, _, err := f.issuer.IssueService("match", time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	lobby := lobbyv1.NewLobbyServiceClient(f.srv.Conn)
	bot := botv1.NewBotServiceClient(f.srv.Conn)

	tests := []struct {
		name     string
		header   string // the authorization metadata; "" sends none
		wantCode codes.Code
	}{
		{name: "missing", header: "", wantCode: codes.Unauthenticated},
		{name: "forged", header: "Bearer " + forged, wantCode: codes.Unauthenticated},
		{name: "expired", header: "Bearer " + expired, wantCode: codes.Unauthenticated},
		{name: "garbage", header: "Bearer not.a.token", wantCode: codes.Unauthenticated},
		{name: "not bearer", header: "Basic " + valid, wantCode: codes.Unauthenticated},
		{name: "tampered", header: "Bearer " + valid[:len(valid)-2] + "xx", wantCode: codes.Unauthenticated},
		{name: "valid player", header: "Bearer " + valid, wantCode: codes.OK},
		{name: "service credential", header: "Bearer " + service, wantCode: codes.OK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := t.Context()
			if tt.header != "" {
				ctx = metadataWith(ctx, tt.header)
			}
			resp, err := lobby.GetStats(ctx, &lobbyv1.GetStatsRequest{})
			if got := status.Code(err); got != tt.wantCode {
				t.Fatalf("GetStats: code %v (%v), want %v", got, err, tt.wantCode)
			}
			if err == nil && resp.GetPlayerId() == "" {
				t.Errorf("GetStats: no principal reached the handler")
			}
		})
	}

	t.Run("public RPC needs no token", func(t *testing.T) {
		t.Parallel()
		if _, err := lobby.SignInGuest(t.Context(), &lobbyv1.SignInGuestRequest{DisplayName: "Ana"}); err != nil {
			t.Errorf("SignInGuest: %v", err)
		}
	})
	t.Run("player token on a service-only RPC", func(t *testing.T) {
		t.Parallel()
		_, err := bot.SelectPly(auth.WithToken(t.Context(), valid), &botv1.SelectPlyRequest{})
		if got := status.Code(err); got != codes.PermissionDenied {
			t.Errorf("SelectPly with a player token: code %v, want PermissionDenied", got)
		}
	})
	t.Run("service credentials on a service-only RPC", func(t *testing.T) {
		t.Parallel()
		conn := f.srv.Dial(t, grpc.WithPerRPCCredentials(auth.NewServiceCredentials(f.issuer, "match", time.Minute)))
		resp, err := botv1.NewBotServiceClient(conn).SelectPly(t.Context(), &botv1.SelectPlyRequest{})
		if err != nil {
			t.Fatalf("SelectPly with service credentials: %v", err)
		}
		if resp.GetNotation() != "e2" {
			t.Errorf("SelectPly = %q, want e2", resp.GetNotation())
		}
	})
	t.Run("player id reaches the handler", func(t *testing.T) {
		t.Parallel()
		conn := f.srv.Dial(t, grpc.WithPerRPCCredentials(auth.TokenCredentials{Token: valid}))
		resp, err := lobbyv1.NewLobbyServiceClient(conn).GetStats(t.Context(), &lobbyv1.GetStatsRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if resp.GetPlayerId() != "p-1" || resp.GetDisplayName() != "Ana" {
			t.Errorf("GetStats = %q %q, want p-1 Ana", resp.GetPlayerId(), resp.GetDisplayName())
		}
	})
}

func TestServerFaultsAreInternalWithoutDetail(t *testing.T) {
	t.Parallel()
	f := start(t, time.Minute)
	ctx := auth.WithToken(t.Context(), f.playerToken(t))
	lobby := lobbyv1.NewLobbyServiceClient(f.srv.Conn)

	_, panicErr := lobby.ListRooms(ctx, &lobbyv1.ListRoomsRequest{})
	_, rawErr := lobby.ListGames(ctx, &lobbyv1.ListGamesRequest{})
	stream, err := lobby.FindMatch(ctx, &lobbyv1.FindMatchRequest{})
	if err != nil {
		t.Fatal(err)
	}
	_, streamErr := stream.Recv()

	for name, err := range map[string]error{"unary panic": panicErr, "raw error": rawErr, "stream panic": streamErr} {
		st, _ := status.FromError(err)
		if st.Code() != codes.Internal || st.Message() != "internal error" {
			t.Errorf("%s: got %v %q, want Internal %q", name, st.Code(), st.Message(), "internal error")
		}
	}
	logs := f.logs.String()
	if !strings.Contains(logs, secret) || !strings.Contains(logs, "goroutine") {
		t.Errorf("the panic and its stack were not logged:\n%s", logs)
	}
	if n := strings.Count(logs, `"rpc":"/tabuleiro.lobby.v1.LobbyService/ListRooms"`); n != 1 {
		t.Errorf("the failed ListRooms was logged %d times, want once:\n%s", n, logs)
	}
}

func TestLogLinePerRPC(t *testing.T) {
	t.Parallel()
	f := start(t, time.Minute)
	ctx := auth.WithToken(t.Context(), f.playerToken(t))
	if _, err := lobbyv1.NewLobbyServiceClient(f.srv.Conn).GetStats(ctx, &lobbyv1.GetStatsRequest{}); err != nil {
		t.Fatal(err)
	}
	var line map[string]any
	for l := range strings.Lines(f.logs.String()) {
		if strings.Contains(l, "GetStats") {
			if err := json.Unmarshal([]byte(l), &line); err != nil {
				t.Fatalf("log line is not JSON: %v\n%s", err, l)
			}
		}
	}
	for _, key := range []string{"rpc", "code", "duration_ms", "peer", "player_id"} {
		if _, ok := line[key]; !ok {
			t.Errorf("log line has no %q: %v", key, line)
		}
	}
	if line["code"] != "OK" || line["player_id"] != "p-1" {
		t.Errorf("log line = %v, want code OK and player_id p-1", line)
	}
}

func TestGracefulStopFinishesInFlightCall(t *testing.T) {
	t.Parallel()
	f := start(t, time.Minute)
	ctx := auth.WithToken(t.Context(), f.playerToken(t))

	watchCtx, stopWatch := context.WithCancel(t.Context())
	defer stopWatch()
	watch, err := healthpb.NewHealthClient(f.srv.Conn).Watch(watchCtx, &healthpb.HealthCheckRequest{Service: "tabuleiro.match.v1.MatchService"})
	if err != nil {
		t.Fatal(err)
	}
	if got := recvHealth(t, watch); got != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health before shutdown = %v, want SERVING", got)
	}

	type result struct {
		resp *matchv1.GetMatchResponse
		err  error
	}
	inFlight := make(chan result, 1)
	go func() {
		resp, err := matchv1.NewMatchServiceClient(f.srv.Conn).GetMatch(ctx, &matchv1.GetMatchRequest{MatchId: "m-1"})
		inFlight <- result{resp, err}
	}()
	<-f.match.started

	stopped := f.srv.Shutdown()
	if got := recvHealth(t, watch); got != healthpb.HealthCheckResponse_NOT_SERVING {
		t.Fatalf("health after shutdown began = %v, want NOT_SERVING", got)
	}
	stopWatch() // the watch is a stream too: end it so the drain can finish

	select {
	case err := <-stopped:
		t.Fatalf("Run returned (%v) while a call was in flight", err)
	case r := <-inFlight:
		t.Fatalf("the in-flight call ended (%v) before it was released", r.err)
	default:
	}
	close(f.match.release)
	r := <-inFlight
	if r.err != nil || r.resp.GetMatch().GetMatchId() != "m-1" {
		t.Fatalf("in-flight GetMatch = %v, %v; want m-1, nil", r.resp, r.err)
	}
	if err := <-stopped; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestShutdownTimeoutStopsHard(t *testing.T) {
	t.Parallel()
	f := start(t, 50*time.Millisecond)
	ctx := auth.WithToken(t.Context(), f.playerToken(t))
	inFlight := make(chan error, 1)
	go func() {
		_, err := matchv1.NewMatchServiceClient(f.srv.Conn).GetMatch(ctx, &matchv1.GetMatchRequest{MatchId: "m-1"})
		inFlight <- err
	}()
	<-f.match.started
	if err := <-f.srv.Shutdown(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	if got := status.Code(<-inFlight); got != codes.Unavailable {
		t.Errorf("call cut by the hard stop: code %v, want Unavailable", got)
	}
	close(f.match.release)
}

func recvHealth(t *testing.T, w grpc.ServerStreamingClient[healthpb.HealthCheckResponse]) healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	resp, err := w.Recv()
	if err != nil && !errors.Is(err, io.EOF) {
		t.Fatalf("health watch: %v", err)
	}
	return resp.GetStatus()
}

func TestRunOnTCP(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- grpcserve.Run(ctx, grpcserve.Options{
			Addr:     "127.0.0.1:0",
			OnListen: func(a net.Addr) { addrs <- a.String() },
		}, nil)
	}()
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	resp, err := healthpb.NewHealthClient(conn).Check(t.Context(), &healthpb.HealthCheckRequest{})
	if err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Fatalf("health over TCP = %v, %v; want SERVING", resp.GetStatus(), err)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
}

func TestRunReportsListenError(t *testing.T) {
	t.Parallel()
	err := grpcserve.Run(t.Context(), grpcserve.Options{Addr: "256.0.0.1:bad"}, nil)
	if err == nil {
		t.Fatal("Run on a bad address returned nil")
	}
}
