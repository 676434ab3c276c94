package grpcserve_test

// What the browser protocols and net/http cost per unary call, against
// grpc-go's own HTTP/2 transport, on a trivial RPC over loopback TCP:
//
//	go test -run '^$' -bench UnaryTransport -benchtime 5000x ./pkg/platform/grpcserve/
//
// "grpc-native" is grpc-go's own HTTP/2 transport (grpc.Server.Serve, what
// Run served to prior-knowledge HTTP/2 clients until it chose by content
// type); "grpc-servehttp" is what Run serves now: net/http (h2c) and
// grpc.Server.ServeHTTP; "grpc-web" and "connect" go through net/http
// (HTTP/1.1) and vanguard's transcoding, as browsers do. Each op does one
// call on every path in turn, so a loaded machine slows them alike; each
// path's mean and its ratio to grpc-native are reported.

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/grpcserve"
)

func BenchmarkUnaryTransport(b *testing.B) {
	register := func(s *grpc.Server) { lobbyv1.RegisterLobbyServiceServer(s, fakeLobby{}) }
	ctx, cancel := context.WithCancel(context.Background())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	go func() {
		done <- grpcserve.Run(ctx, grpcserve.Options{Addr: "127.0.0.1:0", OnListen: func(a net.Addr) { addrs <- a.String() }}, register)
	}()
	addr := <-addrs
	defer func() { cancel(); <-done }()

	// grpc-go's own transport.
	gsrv, _ := grpcserve.NewServer(grpcserve.Options{}, register)
	glis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = gsrv.Serve(glis) }()
	defer gsrv.Stop()

	dial := func(a string) lobbyv1.LobbyServiceClient {
		conn, err := grpc.NewClient(a, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { _ = conn.Close() })
		return lobbyv1.NewLobbyServiceClient(conn)
	}
	native, viaHTTP := dial(glis.Addr().String()), dial(addr)
	tr := &http.Transport{MaxIdleConnsPerHost: 4}
	defer tr.CloseIdleConnections()
	hc := &http.Client{Transport: tr}
	url := "http://" + addr + lobbyv1.LobbyService_SignInGuest_FullMethodName
	grpcWeb := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](hc, url, connect.WithGRPCWeb())
	connectProto := connect.NewClient[lobbyv1.SignInGuestRequest, lobbyv1.SignInGuestResponse](hc, url)
	req := &lobbyv1.SignInGuestRequest{DisplayName: "Ana"}
	paths := []struct {
		name string
		call func() error
	}{
		{"grpc-native", func() error { _, err := native.SignInGuest(ctx, req); return err }},
		{"grpc-servehttp", func() error { _, err := viaHTTP.SignInGuest(ctx, req); return err }},
		{"grpc-web", func() error { _, err := grpcWeb.CallUnary(ctx, connect.NewRequest(req)); return err }},
		{"connect", func() error { _, err := connectProto.CallUnary(ctx, connect.NewRequest(req)); return err }},
	}
	for _, p := range paths { // warm the connections
		if err := p.call(); err != nil {
			b.Fatalf("%s: %v", p.name, err)
		}
	}
	total := make([]time.Duration, len(paths))
	b.ResetTimer()
	for range b.N {
		for i, p := range paths {
			t0 := time.Now()
			if err := p.call(); err != nil {
				b.Fatalf("%s: %v", p.name, err)
			}
			total[i] += time.Since(t0)
		}
	}
	b.StopTimer()
	for i, p := range paths {
		us := float64(total[i].Nanoseconds()) / 1e3 / float64(b.N)
		b.ReportMetric(us, p.name+"-us/call")
		if i > 0 {
			b.ReportMetric(float64(total[i])/float64(total[0]), p.name+"-x-native")
		}
	}
}
