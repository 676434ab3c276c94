// Package affinity names the match a call is about, in a request header,
// so that a router (the edge: HAProxy, deploy/haproxy/haproxy.cfg, or a Gateway API route) sends every call of one match
// to the same match replica: both seats of a game and its spectators meet
// there, and the replica publishes and decodes each commit once instead of
// on every replica that holds one of the match's streams. Calls without it
// still work, round-robin.
package affinity

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// Header is the request header (gRPC metadata key) that names the match.
const Header = "tabuleiro-match-id"

// MaxLen is the longest value of Header that can name a match: the match
// service refuses longer match ids (128 bytes), so a router ignores a
// longer value rather than hash it.
const MaxLen = 128

// Context returns ctx with the outgoing header naming match id, for the
// streams (Play, Follow, Watch), whose request is sent after the call
// starts. An id that cannot name a match (empty, longer than MaxLen, or
// with a byte that is not printable ASCII, which the match service
// refuses) is left out: grpc-go would fail the whole call with INTERNAL
// for such a header value, while the call without it gets the service's
// own refusal of the id.
func Context(ctx context.Context, id string) context.Context {
	if !nameable(id) {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, Header, id)
}

// nameable reports whether id can name a match: 1 to MaxLen bytes of
// printable ASCII without spaces, as the match service's ids are.
func nameable(id string) bool {
	if id == "" || len(id) > MaxLen {
		return false
	}
	for i := range len(id) {
		if c := id[i]; c <= ' ' || c > '~' {
			return false
		}
	}
	return true
}

// UnaryClientInterceptor adds the header to every unary call whose request
// has a match id (GetMatchId), unless the context names one already.
func UnaryClientInterceptor() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if m, ok := req.(interface{ GetMatchId() string }); ok {
			if md, _ := metadata.FromOutgoingContext(ctx); len(md.Get(Header)) == 0 {
				ctx = Context(ctx, m.GetMatchId())
			}
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}
