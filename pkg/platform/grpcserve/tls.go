package grpcserve

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"tabuleiro.dev/pkg/platform/telemetry"
)

// DefaultMaxConnectionAge is used when Options.MaxConnectionAge is 0. After
// it a server sends GOAWAY: clients open a new connection (re-resolving
// dns:/// targets, so they spread onto pods added since) while the streams
// already open on the old one run to their end.
const DefaultMaxConnectionAge = 5 * time.Minute

// RoundRobin is the service config of service-to-service clients: calls
// spread over every address the resolver returns (dns:///match:8080 gives
// every ready pod behind a headless Service, or every compose replica).
const RoundRobin = `{"loadBalancingConfig":[{"round_robin":{}}]}`

// Retrying is RoundRobin with a retry policy for the named methods of
// service ("tabuleiro.match.v1.MatchService"), which must be idempotent:
// a call answered UNAVAILABLE (a replica draining, killed under the call,
// or its store failing over) is sent again, up to 4 attempts in all with
// 50-400 ms backoff, and round_robin picks the next ready replica for it.
// The caller's deadline bounds the whole.
func Retrying(service string, methods ...string) string {
	names := make([]map[string]string, len(methods))
	for i, m := range methods {
		names[i] = map[string]string{"service": service, "method": m}
	}
	b, err := json.Marshal(map[string]any{
		"loadBalancingConfig": []any{map[string]any{"round_robin": map[string]any{}}},
		"methodConfig": []any{map[string]any{
			"name": names,
			"retryPolicy": map[string]any{
				"maxAttempts": 4, "initialBackoff": "0.05s", "maxBackoff": "0.4s", "backoffMultiplier": 2,
				"retryableStatusCodes": []string{"UNAVAILABLE"},
			},
		}},
	})
	if err != nil {
		panic(err) // maps of strings and numbers
	}
	return string(b)
}

// ServerTLS returns the TLS configuration of a server with the PEM
// certificate and key in certFile and keyFile, or nil (plaintext) when both
// are empty. One set without the other is an error.
func ServerTLS(certFile, keyFile string) (*tls.Config, error) {
	if certFile == "" && keyFile == "" {
		return nil, nil
	}
	if certFile == "" || keyFile == "" {
		return nil, errors.New("TLS needs both a certificate file and a key file")
	}
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("load TLS key pair: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}, nil
}

// ClientCredentials returns the transport credentials of a call to another
// service: TLS trusting only the PEM CA certificates in caFile when it is
// set, plaintext otherwise (inside a private network, or in tests).
func ClientCredentials(caFile string) (credentials.TransportCredentials, error) {
	if caFile == "" {
		return insecure.NewCredentials(), nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("read CA file: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CA file %s holds no PEM certificate", caFile)
	}
	return credentials.NewTLS(&tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}), nil
}

// DialOptions configure a service-to-service client.
type DialOptions struct {
	// CAFile, when set, makes the client use TLS and trust only its CAs.
	CAFile string
	// Creds, when set, replaces CAFile (tests pass their own).
	Creds credentials.TransportCredentials
	// PerRPC authenticates every call (auth.NewServiceCredentials).
	PerRPC credentials.PerRPCCredentials
	// Telemetry traces the calls and propagates the trace context; nil
	// means telemetry.Disabled() (which still propagates).
	Telemetry *telemetry.Telemetry
	// ServiceConfig replaces RoundRobin (Retrying: RoundRobin with
	// retries of idempotent methods).
	ServiceConfig string
	// DialOptions are appended.
	DialOptions []grpc.DialOption
}

// Dial returns a client of target ("dns:///match:8080", "127.0.0.1:9000")
// with the platform's conventions: round_robin over the resolved
// addresses, TLS with a private CA when configured, the otelgrpc client
// handler, per-RPC credentials.
func Dial(target string, o DialOptions) (*grpc.ClientConn, error) {
	creds := o.Creds
	if creds == nil {
		var err error
		if creds, err = ClientCredentials(o.CAFile); err != nil {
			return nil, err
		}
	}
	tel := o.Telemetry
	if tel == nil {
		tel = telemetry.Disabled()
	}
	sc := o.ServiceConfig
	if sc == "" {
		sc = RoundRobin
	}
	dopts := []grpc.DialOption{
		grpc.WithTransportCredentials(creds),
		grpc.WithDefaultServiceConfig(sc),
	}
	if tel.TracesEnabled || tel.MetricsEnabled {
		dopts = append(dopts, grpc.WithStatsHandler(tel.ClientHandler()))
	}
	if o.PerRPC != nil {
		dopts = append(dopts, grpc.WithPerRPCCredentials(o.PerRPC))
	}
	dopts = append(dopts, o.DialOptions...)
	conn, err := grpc.NewClient(target, dopts...)
	if err != nil {
		return nil, fmt.Errorf("dial %s: %w", target, err)
	}
	return conn, nil
}

// isLoopback reports whether a listener's address is reachable only from
// this machine. Non-TCP listeners (bufconn, unix sockets) count as local.
func isLoopback(a net.Addr) bool {
	tcp, ok := a.(*net.TCPAddr)
	if !ok {
		return true
	}
	return tcp.IP != nil && tcp.IP.IsLoopback()
}

// HealthOf returns a check of the service behind conn through
// grpc.health.v1 (the server's overall status): nil when a replica
// answers SERVING. For telemetry.Dependency.
func HealthOf(conn *grpc.ClientConn) func(ctx context.Context) error {
	hc := healthpb.NewHealthClient(conn)
	return func(ctx context.Context) error {
		res, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			return err
		}
		if res.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			return fmt.Errorf("health %s", res.GetStatus())
		}
		return nil
	}
}
