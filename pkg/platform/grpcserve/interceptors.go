package grpcserve

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/rpcerr"
)

// finish turns a handler's error into what the client may see and logs the
// RPC once. A server fault (Internal, Unknown, DataLoss, or a plain error
// that gRPC would send as Unknown with its raw text) is logged at Error with
// its cause and sent as Internal "internal error"; everything else is
// logged at Debug (the access log, off by default).
func finish(ctx context.Context, logger *slog.Logger, method string, start time.Time, who *caller, err error) error {
	if err != nil {
		if _, isStatus := status.FromError(err); !isStatus &&
			(errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			err = status.FromContextError(err).Err()
		}
	}
	code := status.Code(err)
	attrs := []any{
		"rpc", method,
		"code", code.String(),
		"duration_ms", time.Since(start).Milliseconds(),
	}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		attrs = append(attrs, "peer", p.Addr.String())
	}
	if pr, ok := who.get(); ok {
		if pr.IsService() {
			attrs = append(attrs, "service", pr.Subject)
		} else {
			attrs = append(attrs, "player_id", pr.Subject)
		}
	}
	switch code {
	case codes.Internal, codes.Unknown, codes.DataLoss:
		logger.ErrorContext(ctx, "rpc failed", append(attrs, "err", err.Error())...)
		return status.Error(codes.Internal, rpcerr.InternalMessage)
	default:
		// The per-call access log is off by default: DEBUG, which a
		// service's *_LOG_LEVEL=DEBUG turns on (deploy/README.md). A
		// line for every ply and probe was most of a busy replica's
		// log; failures are counted by the RPC metrics and alerts.
		logger.Log(ctx, slog.LevelDebug, "rpc finished", attrs...)
		return err
	}
}

func loggingUnary(logger *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		who := &caller{}
		resp, err := handler(context.WithValue(ctx, callerKey{}, who), req)
		return resp, finish(ctx, logger, info.FullMethod, start, who, err)
	}
}

// panicError is a recovered panic: sent as Internal, logged with its stack.
func panicError(r any) error {
	return rpcerr.Internal(fmt.Errorf("panic: %v\n%s", r, debug.Stack()))
}

func recoveryUnary() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if r := recover(); r != nil {
				resp, err = nil, panicError(r)
			}
		}()
		return handler(ctx, req)
	}
}

// caller carries the authenticated principal from the auth interceptor back
// out to the logging interceptor, which runs outside it.
type caller struct {
	mu sync.Mutex
	p  auth.Principal
	ok bool
}

type callerKey struct{}

func (c *caller) set(p auth.Principal) {
	c.mu.Lock()
	c.p, c.ok = p, true
	c.mu.Unlock()
}

func (c *caller) get() (auth.Principal, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.p, c.ok
}

func recordCaller(ctx context.Context) {
	if p, ok := auth.FromContext(ctx); ok {
		if c, ok := ctx.Value(callerKey{}).(*caller); ok {
			c.set(p)
		}
	}
}

func authUnary(a *auth.Interceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		ctx, err := a.Authenticate(ctx, info.FullMethod)
		if err != nil {
			return nil, err
		}
		recordCaller(ctx)
		return handler(ctx, req)
	}
}

// serverStream is, for streams, what the unary chain is (logging,
// localize, recovery, decode, and authentication unless a is nil; outermost
// first), as one interceptor: one stack frame where a chain has ten. A
// stream's goroutine waits inside its interceptors for as long as the
// stream lasts (an idle Watch, for hours), and the runtime halves a
// waiting goroutine's stack only while it uses less than a quarter of it:
// the chain's frames kept an idle stream's stack at 16 KB, this one lets
// it shrink to 8 KB (docs/architecture.md, watchload).
func serverStream(logger *slog.Logger, a *auth.Interceptor) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		start := time.Now()
		who := &caller{}
		outer := ss.Context()
		ctx := context.WithValue(outer, callerKey{}, who)
		defer func() {
			if r := recover(); r != nil {
				err = panicError(r)
			}
			err = finish(outer, logger, info.FullMethod, start, who, localize(ctx, err))
		}()
		if a != nil {
			actx, aerr := a.Authenticate(ctx, info.FullMethod)
			if aerr != nil {
				return aerr
			}
			recordCaller(actx)
			ctx = actx
		}
		return handler(srv, &contextStream{ServerStream: decodeCheckedStream{ss}, ctx: ctx})
	}
}

type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *contextStream) Context() context.Context { return s.ctx }
