// Package e2e holds end-to-end tests of the three services as they are
// deployed: lobby, match and bot each on its own loopback TCP port, calling
// each other over gRPC (TLS with a private CA, traced with OpenTelemetry),
// against the real Redis and PostgreSQL of scripts/test.sh.
package e2e
