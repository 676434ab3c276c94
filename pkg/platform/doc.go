// Package platform is the root of the libraries every Tabuleiro service
// shares: the gRPC server runner, auth tokens, configuration and telemetry.
package platform
