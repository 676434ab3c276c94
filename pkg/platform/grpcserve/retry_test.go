package grpcserve_test

import (
	"net"
	"sync/atomic"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/resolver"
	"google.golang.org/grpc/resolver/manual"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"tabuleiro.dev/pkg/platform/grpcserve"
)

// replica serves every method: a draining one answers UNAVAILABLE, as a
// match replica does after SIGTERM, the other answers.
func replica(t *testing.T, draining bool, calls *atomic.Int64) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		calls.Add(1)
		var in emptypb.Empty
		if err := stream.RecvMsg(&in); err != nil {
			return err
		}
		if draining {
			return status.Error(codes.Unavailable, "draining")
		}
		return stream.SendMsg(&emptypb.Empty{})
	}))
	go func() { _ = s.Serve(l) }()
	t.Cleanup(s.Stop)
	return l.Addr().String()
}

// With Retrying, an idempotent call that one replica answers UNAVAILABLE
// goes to the next: 20 calls over a draining and a serving replica all
// succeed; a method not named is not retried (about half fail). The lobby
// calls match this way (CreateMatch is idempotent on its request id).
func TestRetryingGoesToAnotherReplica(t *testing.T) {
	var drained, served atomic.Int64
	addrs := []resolver.Address{{Addr: replica(t, true, &drained)}, {Addr: replica(t, false, &served)}}
	r := manual.NewBuilderWithScheme("replicas")
	r.InitialState(resolver.State{Addresses: addrs})
	conn, err := grpcserve.Dial(r.Scheme()+":///match", grpcserve.DialOptions{
		Creds:         insecure.NewCredentials(),
		ServiceConfig: grpcserve.Retrying("tabuleiro.match.v1.MatchService", "CreateMatch"),
		DialOptions:   []grpc.DialOption{grpc.WithResolvers(r)},
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	for i := range 20 {
		if err := conn.Invoke(t.Context(), "/tabuleiro.match.v1.MatchService/CreateMatch", &emptypb.Empty{}, &emptypb.Empty{}); err != nil {
			t.Fatalf("call %d: %v (the draining replica's refusal reached the caller)", i, err)
		}
	}
	if drained.Load() == 0 {
		t.Fatal("no call reached the draining replica: nothing was retried")
	}
	failed := 0
	for range 20 {
		if err := conn.Invoke(t.Context(), "/tabuleiro.match.v1.MatchService/SubmitPly", &emptypb.Empty{}, &emptypb.Empty{}); status.Code(err) == codes.Unavailable {
			failed++
		}
	}
	if failed == 0 {
		t.Fatal("a method not named was retried")
	}
	t.Logf("CreateMatch: 20 of 20 answered, %d refusals retried on the other replica; SubmitPly, not retried: %d of 20 refused", drained.Load(), failed)
}
