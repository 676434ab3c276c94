package grpcserve

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	protov2 "google.golang.org/protobuf/proto"

	"tabuleiro.dev/pkg/platform/reason"
)

// A request that does not decode (a string field that is not UTF-8, a
// truncated or malformed message) is the caller's fault: INVALID_ARGUMENT
// with the reason. grpc-go itself reports every decoding failure as
// INTERNAL, from a place no interceptor sees, so the server's codec
// decodes leniently instead: on a failure it leaves the message empty,
// notes the failure against it, and reports success; the interceptors
// below, first to see the message, answer INVALID_ARGUMENT for it before
// any handler runs (a unary call), or from the stream's RecvMsg (a
// stream: its handler ends it with that status, never INTERNAL).

// undecoded holds the decoding error of each message the codec could not
// decode, until an interceptor takes it (at once, for the same call).
var undecoded sync.Map // proto message pointer → error

type lenientCodec struct{ encoding.CodecV2 }

// The lenient codec is registered as "proto" for the whole process, where
// the servers and the browser protocols' in-process transcoder
// (vanguardgrpc) find it by name. A client in the same process decodes
// with it too; our servers' replies always decode.
func init() {
	encoding.RegisterCodecV2(newLenientCodec())
}

func newLenientCodec() encoding.CodecV2 {
	return lenientCodec{encoding.GetCodecV2(proto.Name)}
}

func (c lenientCodec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.CodecV2.Unmarshal(data, v)
	if err == nil {
		return nil
	}
	m, ok := v.(protov2.Message)
	if !ok {
		return err
	}
	protov2.Reset(m)
	undecoded.Store(m, err)
	return nil
}

// takeUndecoded returns the INVALID_ARGUMENT status of a message the codec
// could not decode, nil for one it could.
func takeUndecoded(m any) error {
	if m == nil {
		return nil
	}
	err, ok := undecoded.LoadAndDelete(m)
	if !ok {
		return nil
	}
	return reason.Error(codes.InvalidArgument, reason.MalformedRequest, fmt.Sprintf("malformed request message: %v", err), nil)
}

func decodeUnary() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if err := takeUndecoded(req); err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

type decodeCheckedStream struct{ grpc.ServerStream }

func (s decodeCheckedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return callersFault(err)
	}
	return takeUndecoded(m)
}

// callersFault turns the INTERNAL statuses that grpc-go's stream RecvMsg
// gives for a request the client got wrong into INVALID_ARGUMENT with a
// reason a person can act on, so that the server does not log the caller's
// mistake as its own error: a server-streaming call whose client closed its
// side without the one request message, or sent more than one, and a
// message marked compressed that does not decompress. grpc-go has already
// sent its INTERNAL status to a native gRPC client by then (RecvMsg writes
// it); the browser protocols' empty body is answered INVALID_ARGUMENT
// before it reaches grpc-go (rejectMalformed).
func callersFault(err error) error {
	st, ok := status.FromError(err)
	if !ok || st.Code() != codes.Internal {
		return err
	}
	msg := st.Message()
	switch {
	case strings.HasPrefix(msg, "cardinality violation: received no request message"):
		return reason.Error(codes.InvalidArgument, reason.MalformedRequest, "the request is empty: this call takes exactly one request message, and the client ended its side without sending one", nil)
	case strings.HasPrefix(msg, "cardinality violation: received multiple request messages"):
		return reason.Error(codes.InvalidArgument, reason.MalformedRequest, "this call takes exactly one request message, and the client sent more", nil)
	case strings.HasPrefix(msg, "grpc: failed to decompress"):
		return reason.Error(codes.InvalidArgument, reason.MalformedRequest, "the request message is marked compressed but does not decompress: "+strings.TrimPrefix(msg, "grpc: "), nil)
	}
	return err
}
