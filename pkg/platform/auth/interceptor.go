package auth

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"

	"tabuleiro.dev/pkg/platform/reason"
)

// alwaysPublic are the services every server exposes without a token:
// health checks (probes have no token) and reflection (grpcurl, buf curl).
var alwaysPublic = []string{
	"/grpc.health.v1.Health/",
	"/grpc.reflection.v1.ServerReflection/",
	"/grpc.reflection.v1alpha.ServerReflection/",
}

// Policy says which RPCs need which credential. Entries are full method
// names ("/tabuleiro.lobby.v1.LobbyService/SignInGuest") or whole services
// ending in a slash ("/tabuleiro.bot.v1.BotService/").
type Policy struct {
	// Public RPCs need no token; a valid one is still put in the context, an
	// invalid one is ignored. Health and reflection are always public.
	Public []string
	// ServiceOnly RPCs accept only a service credential; a player token gets
	// PermissionDenied.
	ServiceOnly []string
	// SignIns, when set, is asked whether a player token's sign-in has
	// ended (package signin): one signed out or revoked is refused,
	// however long the token has to live.
	SignIns SignIns
}

// SignIns answers whether a sign-in (auth.Principal.Family) has ended:
// ErrSignedOut, ErrSignInRevoked, another error when it cannot tell, or
// nil.
type SignIns interface {
	Check(ctx context.Context, family string) error
}

// Interceptor authenticates every RPC from its `authorization: Bearer …`
// metadata and puts the Principal in the handler's context.
type Interceptor struct {
	verifier    *Verifier
	public      []string
	serviceOnly []string
	signIns     SignIns
}

// NewInterceptor returns an interceptor verifying tokens with v under p.
func NewInterceptor(v *Verifier, p Policy) *Interceptor {
	return &Interceptor{
		verifier:    v,
		public:      append(append([]string(nil), alwaysPublic...), p.Public...),
		serviceOnly: append([]string(nil), p.ServiceOnly...),
		signIns:     p.SignIns,
	}
}

func matches(list []string, method string) bool {
	for _, m := range list {
		if m == method || (strings.HasSuffix(m, "/") && strings.HasPrefix(method, m)) {
			return true
		}
	}
	return false
}

// Authenticate returns ctx with the caller's Principal, or a status error:
// Unauthenticated for a missing, malformed, forged or expired token,
// PermissionDenied for a player calling a service-only RPC.
func (i *Interceptor) Authenticate(ctx context.Context, method string) (context.Context, error) {
	token, err := bearer(ctx)
	if matches(i.public, method) {
		if err == nil && token != "" {
			if p, verr := i.verifier.Verify(token); verr == nil {
				ctx = NewContext(ctx, p)
			}
		}
		return ctx, nil
	}
	if err != nil {
		return nil, reason.Error(codes.Unauthenticated, reason.TokenMissing, err.Error(), nil)
	}
	if token == "" {
		return nil, reason.Error(codes.Unauthenticated, reason.TokenMissing, "missing bearer token", nil)
	}
	p, err := i.verifier.Verify(token)
	switch {
	case errors.Is(err, ErrExpiredToken):
		return nil, reason.Error(codes.Unauthenticated, reason.TokenExpired, "token expired; refresh it or sign in again", nil)
	case err != nil:
		return nil, reason.Error(codes.Unauthenticated, reason.TokenInvalid, "invalid token", nil)
	}
	if matches(i.serviceOnly, method) && !p.IsService() {
		return nil, reason.Error(codes.PermissionDenied, reason.ServiceOnly, "only Tabuleiro services may call this method", nil)
	}
	if i.signIns != nil && !p.IsService() && p.Family != "" {
		switch err := i.signIns.Check(ctx, p.Family); {
		case errors.Is(err, ErrSignedOut):
			return nil, reason.Error(codes.Unauthenticated, reason.SignedOut, "this sign-in was signed out; sign in again", nil)
		case errors.Is(err, ErrSignInRevoked):
			return nil, reason.Error(codes.Unauthenticated, reason.SessionRevoked, "every token of this sign-in is revoked (a refresh token was used twice); sign in again", nil)
		case err != nil:
			return nil, reason.Error(codes.Unavailable, reason.Unavailable, "the sign-in could not be checked; retry shortly", nil)
		}
	}
	return NewContext(ctx, p), nil
}

// bearer returns the token of the authorization metadata, "" if absent.
func bearer(ctx context.Context) (string, error) {
	md, _ := metadata.FromIncomingContext(ctx)
	vals := md.Get("authorization")
	if len(vals) == 0 {
		return "", nil
	}
	if len(vals) > 1 {
		return "", errors.New("more than one authorization header")
	}
	scheme, token, ok := strings.Cut(vals[0], " ")
	if !ok || !strings.EqualFold(scheme, "bearer") || strings.TrimSpace(token) == "" {
		return "", errors.New(`authorization must be "Bearer <token>"`)
	}
	return strings.TrimSpace(token), nil
}

// Unary returns the unary server interceptor.
func (i *Interceptor) Unary() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		ctx, err := i.Authenticate(ctx, info.FullMethod)
		if err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// Stream returns the stream server interceptor.
func (i *Interceptor) Stream() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		ctx, err := i.Authenticate(ss.Context(), info.FullMethod)
		if err != nil {
			return err
		}
		return handler(srv, &contextStream{ServerStream: ss, ctx: ctx})
	}
}

type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *contextStream) Context() context.Context { return s.ctx }
