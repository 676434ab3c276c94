// Package e2e holds end-to-end tests of the three services as they are
// deployed: lobby, match and bot each on its own loopback TCP port, calling
// each other over gRPC (TLS with a private CA, traced with OpenTelemetry),
// against the real Redis and PostgreSQL of scripts/test.sh. Most tests run
// the services in the test process with the SDK's in-memory exporter;
// TestTelemetryAcrossProcesses runs the built binaries as processes (with
// a Redis of their own and a fresh database) exporting by OTLP to the
// collector stand-in of package otelstub.
package e2e
