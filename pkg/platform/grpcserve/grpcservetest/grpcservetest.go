// Package grpcservetest runs a service under grpcserve.Run on a loopback
// listener, with the production interceptors, health, reflection and
// shutdown, for handler tests that assert status codes end to end.
package grpcservetest

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/reason"
)

// Listener is a test server's listener: loopback TCP on a free port, with
// the dialing methods of grpc's bufconn, which it replaces. bufconn's read
// deadline can fire after it was reset (SetReadDeadline stops the old
// timer but not a callback already waiting for the pipe's lock), and
// net/http takes such a timeout for a closed connection: on a loaded
// machine it cancelled requests mid-call, and the browser protocols' calls
// came back "canceled" or without their content type.
type Listener struct{ net.Listener }

// Listen returns a Listener, closed when the test ends.
func Listen(t testing.TB) *Listener {
	t.Helper()
	var lc net.ListenConfig
	l, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on loopback: %v", err)
	}
	t.Cleanup(func() { _ = l.Close() })
	return &Listener{l}
}

// DialContext connects to the listener.
func (l *Listener) DialContext(ctx context.Context) (net.Conn, error) {
	var d net.Dialer
	return d.DialContext(ctx, "tcp", l.Addr().String())
}

// Server is a running test server.
type Server struct {
	// Conn is a client connection to the server with no credentials.
	Conn *grpc.ClientConn

	lis    *Listener
	cancel context.CancelFunc
	done   chan error
}

// Start serves register's services with opts (its Listener is replaced by a
// loopback Listener) until the test ends or Shutdown is called. The cleanup
// shuts the server down and fails the test if Run returned an error.
func Start(t testing.TB, opts grpcserve.Options, register func(*grpc.Server)) *Server {
	t.Helper()
	lis := Listen(t)
	opts.Listener = lis
	// Not t.Context(): it is cancelled before cleanups run, and the
	// cleanup below must be the one that stops the server and waits.
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	s := &Server{lis: lis, cancel: cancel, done: make(chan error, 1)}
	go func() { s.done <- grpcserve.Run(ctx, opts, register) }()
	s.Conn = s.Dial(t)
	t.Cleanup(func() {
		if err := <-s.Shutdown(); err != nil {
			t.Errorf("grpcserve.Run: %v", err)
		}
	})
	return s
}

// Dial returns a new client connection to the server, closed when the test
// ends; opts add to the listener's dialer and plaintext transport (for example
// grpc.WithPerRPCCredentials).
func (s *Server) Dial(t testing.TB, opts ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	opts = append([]grpc.DialOption{
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return s.lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
	}, opts...)
	conn, err := grpc.NewClient("passthrough:///"+s.lis.Addr().String(), opts...)
	if err != nil {
		t.Fatalf("dial test server: %v", err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// BaseURL is the URL of the server for HTTPClient's requests.
const BaseURL = "http://test-server"

// HTTPClient returns an HTTP/1.1 client whose connections go to the server,
// as a browser's do: for Connect and gRPC-Web clients (connect-go with
// BaseURL) and plain HTTP requests.
func (s *Server) HTTPClient(t testing.TB) *http.Client {
	t.Helper()
	tr := &http.Transport{
		DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) { return s.lis.DialContext(ctx) },
	}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// Shutdown cancels the server's context, as SIGTERM does in a service, and
// returns a channel that receives Run's result once it has returned. It may
// be called more than once; each call returns the same result.
func (s *Server) Shutdown() <-chan error {
	s.cancel()
	out := make(chan error, 1)
	go func() {
		err, ok := <-s.done
		if ok {
			s.done <- err // leave it for later callers
		}
		out <- err
	}()
	return out
}

// RequireReasons returns dial options whose interceptors fail t when a
// call ends with a status a client may show but that carries no ErrorInfo
// reason (package reason): every code but OK, Internal, Unknown, the
// context's Canceled and DeadlineExceeded, Unimplemented, and Unavailable (which grpc-go
// also makes itself for a broken transport). Suites that play whole games
// dial with it, so that a status built without a reason fails them.
func RequireReasons(t testing.TB) []grpc.DialOption {
	check := func(method string, err error) {
		st, ok := status.FromError(err)
		if !ok {
			return
		}
		switch st.Code() {
		case codes.OK, codes.Internal, codes.Unknown, codes.Canceled, codes.DeadlineExceeded, codes.Unavailable, codes.Unimplemented:
			return
		}
		if _, has := reason.Of(st); !has {
			t.Errorf("%s answered %v %q without an ErrorInfo reason", method, st.Code(), st.Message())
		}
	}
	return []grpc.DialOption{
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			err := invoker(ctx, method, req, reply, cc, opts...)
			check(method, err)
			return err
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			cs, err := streamer(ctx, desc, cc, method, opts...)
			if err != nil {
				check(method, err)
				return nil, err
			}
			return &checkedStream{ClientStream: cs, check: func(err error) { check(method, err) }}, nil
		}),
	}
}

// checkedStream checks the status a stream ends with.
type checkedStream struct {
	grpc.ClientStream
	check func(error)
}

func (s *checkedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil && !errors.Is(err, io.EOF) {
		s.check(err)
	}
	return err
}
