package e2e

import (
	"crypto/tls"
	"testing"

	"google.golang.org/grpc/credentials"
)

// mustSystemTLS is TLS trusting only the system roots, not the test CA.
func mustSystemTLS(t *testing.T) credentials.TransportCredentials {
	t.Helper()
	return credentials.NewTLS(&tls.Config{MinVersion: tls.VersionTLS12})
}
