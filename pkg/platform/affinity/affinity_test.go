package affinity

import (
	"context"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

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
