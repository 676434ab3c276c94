package auth

import "context"

type principalKey struct{}

// NewContext returns ctx carrying p. The interceptor calls it; tests of
// handlers may too.
func NewContext(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// FromContext returns the verified caller of the request, and false when the
// request carried no valid token (a public RPC called anonymously).
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(principalKey{}).(Principal)
	return p, ok
}
