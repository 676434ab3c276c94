package grpcserve

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"connectrpc.com/connect"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/peer"
)

// transportSeen records, for each call, whether grpc-go's own transport
// served it (its peer carries connCreds' connInfo), and whether the call
// finds its connection's pingGuard (TransportRTT's, the lag bound's).
type transportSeen struct {
	mu      sync.Mutex
	native  []bool
	noGuard int
}

func (s *transportSeen) interceptor(ctx context.Context, req any, _ *grpc.UnaryServerInfo, h grpc.UnaryHandler) (any, error) {
	p, _ := peer.FromContext(ctx)
	_, native := p.AuthInfo.(connInfo)
	s.mu.Lock()
	s.native = append(s.native, native)
	if callGuard(ctx) == nil {
		s.noGuard++
	}
	s.mu.Unlock()
	return h(ctx, req)
}

func (s *transportSeen) last() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.native[len(s.native)-1]
}

func runSplit(t *testing.T, opts Options) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	opts.Addr = "127.0.0.1:0"
	opts.OnListen = func(a net.Addr) { addrs <- a.String() }
	go func() { done <- Run(ctx, opts, nil) }()
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

// TestNativeGRPCConnectionsOnGRPCGoTransport: a cleartext connection whose
// first request is native gRPC is served by grpc-go's own transport (a
// stream costs one goroutine there, three through net/http), and knows its
// round trip (TransportRTT); a connection that starts with Connect or
// gRPC-Web, over HTTP/2 or HTTP/1.1, stays with net/http and still takes
// native gRPC calls after; with MixedConnections every connection is
// net/http's. Before the split, every call went through net/http.
func TestNativeGRPCConnectionsOnGRPCGoTransport(t *testing.T) {
	t.Parallel()
	for _, mixed := range []bool{false, true} {
		seen := &transportSeen{}
		addr := runSplit(t, Options{MixedConnections: mixed,
			ServerOptions: []grpc.ServerOption{grpc.ChainUnaryInterceptor(seen.interceptor)}})

		cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		defer cc.Close()
		for i := range 2 {
			res, err := healthpb.NewHealthClient(cc).Check(t.Context(), &healthpb.HealthCheckRequest{})
			if err != nil || res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Fatalf("mixed %v: native Check %d = %v, %v", mixed, i, res, err)
			}
			if got := seen.last(); got == mixed {
				t.Errorf("mixed %v: native gRPC call %d served by grpc-go's transport: %v", mixed, i, got)
			}
		}

		h2c := &http.Transport{Protocols: new(http.Protocols)}
		h2c.Protocols.SetUnencryptedHTTP2(true)
		defer h2c.CloseIdleConnections()
		h1 := &http.Transport{}
		defer h1.CloseIdleConnections()
		for _, c := range []struct {
			name string
			hc   *http.Client
			opts []connect.ClientOption
		}{
			{"connect/h2c", &http.Client{Transport: h2c}, nil},
			{"grpc-web/h2c", &http.Client{Transport: h2c}, []connect.ClientOption{connect.WithGRPCWeb()}},
			{"grpc after connect on one h2c connection", &http.Client{Transport: h2c}, []connect.ClientOption{connect.WithGRPC()}},
			{"connect/http1.1", &http.Client{Transport: h1}, nil},
			{"grpc-web/http1.1", &http.Client{Transport: h1}, []connect.ClientOption{connect.WithGRPCWeb()}},
		} {
			check := connect.NewClient[healthpb.HealthCheckRequest, healthpb.HealthCheckResponse](c.hc,
				"http://"+addr+healthpb.Health_Check_FullMethodName, c.opts...)
			res, err := check.CallUnary(t.Context(), connect.NewRequest(&healthpb.HealthCheckRequest{}))
			if err != nil || res.Msg.GetStatus() != healthpb.HealthCheckResponse_SERVING {
				t.Errorf("mixed %v: %s: Check = %v, %v", mixed, c.name, res, err)
				continue
			}
			if seen.last() {
				t.Errorf("mixed %v: %s served by grpc-go's transport; want net/http", mixed, c.name)
			}
		}
		if seen.noGuard > 0 {
			t.Errorf("mixed %v: %d calls do not know their connection (TransportRTT)", mixed, seen.noGuard)
		}
	}
}

// TestSniffGRPCPassesOtherConnectionsOnWhole: a connection that is not
// HTTP/2 (an HTTP/1.1 request) or that closes before its first request
// is handed over with every byte it sent, in order.
func TestSniffGRPCPassesOtherConnectionsOnWhole(t *testing.T) {
	t.Parallel()
	for _, sent := range []string{
		"GET / HTTP/1.1\r\nHost: x\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n\x00\x00\x00\x04\x00\x00\x00\x00\x00",
		"P",
	} {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		client, err := net.Dial("tcp", lis.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		server, err := lis.Accept()
		_ = lis.Close()
		if err != nil {
			t.Fatal(err)
		}
		go func() {
			_, _ = client.Write([]byte(sent))
			_ = client.(*net.TCPConn).CloseWrite()
			_, _ = io.Copy(io.Discard, client) // the server's SETTINGS
		}()
		native, replay := sniffGRPC(server, []byte{0, 0, 0, 4, 0, 0, 0, 0, 0})
		if native {
			t.Errorf("%q: taken for native gRPC", sent)
		}
		if !strings.HasPrefix(sent, string(replay)) {
			t.Errorf("%q: replayed %q", sent, replay)
		}
		all, err := io.ReadAll(&replayConn{Conn: server, buf: replay})
		if string(all) != sent || err != nil {
			t.Errorf("%q: read again as %q, %v", sent, all, err)
		}
		_ = server.Close()
		_ = client.Close()
	}
}
