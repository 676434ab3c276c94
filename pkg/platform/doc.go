// Package platform is the root of the libraries every Tabuleiro service
// shares:
//
//   - grpcserve: the gRPC server runner (health, reflection, logging,
//     recovery, auth and OpenTelemetry interceptors, graceful shutdown), and
//     grpcserve/grpcservetest to run it on a loopback listener in tests;
//   - auth: signed, expiring bearer tokens for players and services, the
//     server interceptor that verifies them, and client credentials;
//   - envconfig: reading prefixed environment variables with defaults,
//     reporting every problem at once;
//   - telemetry: OpenTelemetry tracing and metrics from the OTEL_* variables;
//   - rpcerr: mapping domain errors to gRPC status codes;
//   - clientaddr: who a call comes from (trusted proxies, X-Forwarded-For,
//     IPv6 by /64), the one rule every per-address limit keys on;
//   - testenv (tests only): each test's own Redis key prefix and fresh
//     Postgres schema on the servers scripts/test.sh starts.
package platform
