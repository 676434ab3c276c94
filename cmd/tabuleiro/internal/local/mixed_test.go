package local

import (
	"context"
	"net/http"
	"testing"

	"connectrpc.com/connect"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
)

// TestMixedConnections: on one plaintext HTTP/2 connection a proxy may send
// native gRPC first and Connect after. By default such a connection is
// grpc-go's own transport and refuses the Connect call; with
// MixedConnections (serve --mixed-connections) both are answered.
func TestMixedConnections(t *testing.T) {
	t.Parallel()
	for _, mixed := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
		srv, err := Start(ctx, Options{DataDir: t.TempDir(), MixedConnections: mixed})
		if err != nil {
			cancel()
			t.Fatalf("start: %v", err)
		}
		t.Cleanup(func() { cancel(); _ = srv.Wait() })
		h2c := &http.Transport{Protocols: new(http.Protocols)}
		h2c.Protocols.SetUnencryptedHTTP2(true)
		t.Cleanup(h2c.CloseIdleConnections)
		hc := &http.Client{Transport: h2c}
		url := "http://" + srv.Addr() + healthpb.Health_Check_FullMethodName
		native := connect.NewClient[healthpb.HealthCheckRequest, healthpb.HealthCheckResponse](hc, url, connect.WithGRPC())
		if _, err := native.CallUnary(t.Context(), connect.NewRequest(&healthpb.HealthCheckRequest{})); err != nil {
			t.Fatalf("mixed %v: native gRPC: %v", mixed, err)
		}
		browser := connect.NewClient[healthpb.HealthCheckRequest, healthpb.HealthCheckResponse](hc, url)
		res, err := browser.CallUnary(t.Context(), connect.NewRequest(&healthpb.HealthCheckRequest{}))
		switch {
		case mixed && (err != nil || res.Msg.GetStatus() != healthpb.HealthCheckResponse_SERVING):
			t.Errorf("mixed connections: Connect after native gRPC on one connection = %v, %v; want SERVING", res, err)
		case !mixed && err == nil:
			t.Error("default: Connect after native gRPC on one connection was answered; want it refused (grpc-go's transport)")
		}
	}
}
