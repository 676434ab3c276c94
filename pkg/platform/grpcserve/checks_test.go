package grpcserve_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/grpcserve/grpcservetest"
)

// A failing check turns every service's health (and the server's) to
// NOT_SERVING; once it passes again they are SERVING. Health probes are
// logged at DEBUG, so an INFO logger shows none of them.
func TestChecksDriveHealth(t *testing.T) {
	t.Parallel()
	var down atomic.Bool
	logs := &syncBuffer{}
	srv := grpcservetest.Start(t, grpcserve.Options{
		Logger:        slog.New(slog.NewJSONHandler(logs, nil)),
		CheckInterval: 5 * time.Millisecond,
		Checks: []grpcserve.Check{{Name: "redis", Func: func(context.Context) error {
			if down.Load() {
				return errors.New("dial tcp: connection refused")
			}
			return nil
		}}},
	}, func(s *grpc.Server) { lobbyv1.RegisterLobbyServiceServer(s, fakeLobby{}) })
	hc := healthpb.NewHealthClient(srv.Conn)
	wait := func(service string, want healthpb.HealthCheckResponse_ServingStatus) {
		t.Helper()
		stream, err := hc.Watch(t.Context(), &healthpb.HealthCheckRequest{Service: service})
		if err != nil {
			t.Fatal(err)
		}
		for {
			r, err := stream.Recv()
			if err != nil {
				t.Fatalf("health of %q never became %v: %v", service, want, err)
			}
			if r.GetStatus() == want {
				return
			}
		}
	}
	for _, s := range []string{"", "tabuleiro.lobby.v1.LobbyService"} {
		wait(s, healthpb.HealthCheckResponse_SERVING)
	}
	down.Store(true)
	for _, s := range []string{"", "tabuleiro.lobby.v1.LobbyService"} {
		wait(s, healthpb.HealthCheckResponse_NOT_SERVING)
	}
	down.Store(false)
	for _, s := range []string{"", "tabuleiro.lobby.v1.LobbyService"} {
		wait(s, healthpb.HealthCheckResponse_SERVING)
	}
	if _, err := hc.Check(t.Context(), &healthpb.HealthCheckRequest{}); err != nil {
		t.Fatal(err)
	}
	out := logs.String()
	if strings.Contains(out, "grpc.health.v1") {
		t.Errorf("health calls logged at INFO:\n%s", out)
	}
	if strings.Count(out, "health NOT_SERVING") != 1 || strings.Count(out, "health SERVING") != 1 {
		t.Errorf("want one line for the loss and one for the return:\n%s", out)
	}
	if !strings.Contains(out, "connection refused") {
		t.Errorf("the loss line does not say why:\n%s", out)
	}
}
