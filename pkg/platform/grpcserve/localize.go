package grpcserve

import (
	"context"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/pkg/platform/reason"
)

// AcceptLanguage is the request metadata that names the caller's
// languages, as an Accept-Language value ("pt-BR,pt;q=0.9,en;q=0.8"). A
// browser's Accept-Language header arrives as this metadata over Connect
// and gRPC-Web too.
const AcceptLanguage = "accept-language"

// localize adds a google.rpc.LocalizedMessage in the caller's language to
// err's status when err carries a reason (package reason) and the call
// names a language; any other error is returned as it is (an Internal
// error keeps its cause for the log).
func localize(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	md, _ := metadata.FromIncomingContext(ctx)
	langs := md.Get(AcceptLanguage)
	if len(langs) == 0 {
		return err
	}
	st, ok := status.FromError(err)
	if !ok {
		return err
	}
	if _, has := reason.Of(st); !has {
		return err
	}
	return reason.Localize(st, langs...).Err()
}

func localizeUnary() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		resp, err := handler(ctx, req)
		return resp, localize(ctx, err)
	}
}
