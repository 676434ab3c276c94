package affinity

import (
	"context"
	"net"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/grpc/test/bufconn"

	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// TestUnaryClientInterceptor: a request with a match id carries it in the
// header, once; one without does not; a context that names a match keeps
// its own.
func TestUnaryClientInterceptor(t *testing.T) {
	var got []string
	invoker := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, opts ...grpc.CallOption) error {
		md, _ := metadata.FromOutgoingContext(ctx)
		got = md.Get(Header)
		return nil
	}
	icp := UnaryClientInterceptor()
	for _, c := range []struct {
		ctx  context.Context
		req  any
		want []string
	}{
		{context.Background(), &matchv1.GetMatchRequest{MatchId: "m1"}, []string{"m1"}},
		{context.Background(), &matchv1.ListMatchesRequest{}, nil},
		{context.Background(), &matchv1.GetMatchRequest{}, nil},
		{Context(context.Background(), "m2"), &matchv1.GetMatchRequest{MatchId: "m1"}, []string{"m2"}},
	} {
		if err := icp(c.ctx, "/m", c.req, nil, nil, invoker); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(c.want) || (len(got) > 0 && got[0] != c.want[0]) {
			t.Errorf("%T %v: header %v, want %v", c.req, c.req, got, c.want)
		}
	}
}

// TestUnnameableMatchIDsLeaveTheHeaderOut: a match id that is no valid
// header value (grpc-go refuses to send bytes outside printable ASCII,
// with INTERNAL, before the call leaves) or longer than MaxLen is not
// sent in the header: the call reaches the server, which refuses the id
// in the request itself with its own status.
func TestUnnameableMatchIDsLeaveTheHeaderOut(t *testing.T) {
	lis := bufconn.Listen(1 << 20)
	seen := make(chan []string, 10)
	srv := grpc.NewServer(grpc.UnknownServiceHandler(func(_ any, stream grpc.ServerStream) error {
		md, _ := metadata.FromIncomingContext(stream.Context())
		seen <- md.Get(Header)
		return status.Error(codes.InvalidArgument, "match_id is not an id")
	}))
	go func() { _ = srv.Serve(lis) }()
	defer srv.Stop()
	cc, err := grpc.NewClient("passthrough:///bufnet",
		grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) { return lis.DialContext(ctx) }),
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(UnaryClientInterceptor()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	for _, c := range []struct {
		id   string
		want []string
	}{
		{"m1", []string{"m1"}},
		{"é", nil},
		{"m\x00", nil},
		{"m\tx", nil},
		{strings.Repeat("m", MaxLen), []string{strings.Repeat("m", MaxLen)}},
		{strings.Repeat("m", MaxLen+1), nil},
	} {
		ctx := t.Context()
		err := cc.Invoke(ctx, matchv1.MatchService_GetMatch_FullMethodName, &matchv1.GetMatchRequest{MatchId: c.id}, &matchv1.GetMatchResponse{})
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("unary call for %q: %v, want the server's INVALID_ARGUMENT", c.id, err)
			continue
		}
		if got := <-seen; !slices.Equal(got, c.want) {
			t.Errorf("unary call for %q: header %q, want %q", c.id, got, c.want)
		}
		st, err := cc.NewStream(Context(ctx, c.id), &grpc.StreamDesc{ServerStreams: true}, matchv1.MatchService_Watch_FullMethodName)
		if err == nil {
			_, err = st.Header()
		}
		if err != nil {
			t.Errorf("stream for %q: %v", c.id, err)
			continue
		}
		if got := <-seen; !slices.Equal(got, c.want) {
			t.Errorf("stream for %q: header %q, want %q", c.id, got, c.want)
		}
	}
}
