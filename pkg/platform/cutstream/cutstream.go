// Package cutstream reports a call that a proxy cut short as UNAVAILABLE,
// the status clients retry.
//
// When a backend replica dies mid-call (kill -9, a lost node), the proxy in
// front (HAProxy 2.6, as every HTTP/2 proxy we tried) cannot send the gRPC
// status the backend never wrote: it ends the client's HTTP/2 stream
// without trailers, or resets it. grpc-go reports the first as INTERNAL
// "server closed the stream without sending trailers" and a reset as
// INTERNAL or CANCELED "stream terminated by RST_STREAM …", though the
// server answered nothing: the call's connection to its server broke, which
// is what UNAVAILABLE means (the gRPC status code guide: "the service is
// currently unavailable … a transient condition … corrected by retrying").
// The interceptors here turn exactly those client-side statuses into
// UNAVAILABLE; a status the server sent (INTERNAL included) is untouched.
package cutstream

import (
	"context"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
)

// Unavailable returns err as UNAVAILABLE when it is a call cut short by the
// transport (see the package comment) while ctx is still live; otherwise
// err unchanged.
func Unavailable(ctx context.Context, err error) error {
	if err == nil || ctx.Err() != nil {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	msg := st.Message()
	cut := st.Code() == codes.Internal && strings.Contains(msg, "server closed the stream without sending trailers") ||
		(st.Code() == codes.Internal || st.Code() == codes.Canceled) && strings.Contains(msg, "stream terminated by RST_STREAM")
	if !cut {
		return err
	}
	return status.Error(codes.Unavailable, "the call's connection to its server was cut ("+msg+"): call again")
}

// UnaryClientInterceptor applies Unavailable to unary calls.
func UnaryClientInterceptor() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		return Unavailable(ctx, invoker(ctx, method, req, reply, cc, opts...))
	}
}

// StreamClientInterceptor applies Unavailable to every error of a stream.
func StreamClientInterceptor() grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		s, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, Unavailable(ctx, err)
		}
		return &stream{ClientStream: s, ctx: ctx}, nil
	}
}

type stream struct {
	grpc.ClientStream
	ctx context.Context
}

func (s *stream) RecvMsg(m any) error { return Unavailable(s.ctx, s.ClientStream.RecvMsg(m)) }
func (s *stream) SendMsg(m any) error { return Unavailable(s.ctx, s.ClientStream.SendMsg(m)) }
func (s *stream) Header() (metadata.MD, error) {
	md, err := s.ClientStream.Header()
	return md, Unavailable(s.ctx, err)
}
