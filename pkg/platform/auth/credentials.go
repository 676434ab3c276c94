package auth

import (
	"context"
	"fmt"
	"sync"
	"time"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
)

// WithToken returns ctx with token as the outgoing bearer token of the
// calls made with it, for a client acting for one player.
func WithToken(ctx context.Context, token string) context.Context {
	return metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
}

// TokenCredentials sends a fixed bearer token with every call of a
// connection (grpc.WithPerRPCCredentials). It does not require transport
// security, because local mode runs on plaintext loopback; use TLS between
// hosts.
type TokenCredentials struct {
	Token string
}

// GetRequestMetadata returns the authorization header.
func (c TokenCredentials) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": "Bearer " + c.Token}, nil
}

// RequireTransportSecurity reports false: see TokenCredentials.
func (TokenCredentials) RequireTransportSecurity() bool { return false }

// ServiceCredentials is a service's own credential for its calls to other
// services (grpc.WithPerRPCCredentials). It mints a service token with the
// Issuer and renews it once half of its lifetime has passed.
type ServiceCredentials struct {
	issuer *Issuer
	name   string
	ttl    time.Duration

	mu      sync.Mutex
	token   string
	renewAt time.Time
}

var _ credentials.PerRPCCredentials = (*ServiceCredentials)(nil)

// NewServiceCredentials returns credentials for the service name, with
// tokens valid for ttl (one hour when ttl is 0).
func NewServiceCredentials(iss *Issuer, name string, ttl time.Duration) *ServiceCredentials {
	if ttl == 0 {
		ttl = time.Hour
	}
	return &ServiceCredentials{issuer: iss, name: name, ttl: ttl}
}

// Token returns a valid service token, minting a new one when due.
func (c *ServiceCredentials) Token() (string, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.issuer.clock.now()
	if c.token != "" && now.Before(c.renewAt) {
		return c.token, nil
	}
	tok, exp, err := c.issuer.IssueService(c.name, c.ttl)
	if err != nil {
		return "", fmt.Errorf("service credentials: %w", err)
	}
	c.token, c.renewAt = tok, now.Add(exp.Sub(now)/2)
	return tok, nil
}

// GetRequestMetadata returns the authorization header.
func (c *ServiceCredentials) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	tok, err := c.Token()
	if err != nil {
		return nil, err
	}
	return map[string]string{"authorization": "Bearer " + tok}, nil
}

// RequireTransportSecurity reports false: see TokenCredentials.
func (*ServiceCredentials) RequireTransportSecurity() bool { return false }
