// Command edge is Tabuleiro's edge proxy (package edgeproxy): the one
// address clients use, routing match.v1 calls to the match replicas and
// the rest to the lobby replicas. Configuration is EDGE_* variables
// (edgeproxy.Settings).
package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/services/edge/edgeproxy"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "edge:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string) error {
	s, err := edgeproxy.LoadSettings(getenv)
	if err != nil {
		return fmt.Errorf("load config: %w", err)
	}
	logger := telemetry.NewLogger(os.Stdout, s.LogLevel)
	serverTLS, err := s.ServerTLS()
	if err != nil {
		return err
	}
	backendTLS, err := s.BackendTLS()
	if err != nil {
		return err
	}
	e, err := edgeproxy.New(ctx, edgeproxy.Config{Lobby: s.LobbyAddr, Match: s.MatchAddr, BackendTLS: backendTLS,
		MaxInFlight: s.MaxInFlight, Logger: logger})
	if err != nil {
		return err
	}
	var lc net.ListenConfig
	lis, err := lc.Listen(ctx, "tcp", s.Addr)
	if err != nil {
		return fmt.Errorf("listen on %s: %w", s.Addr, err)
	}
	return edgeproxy.Serve(ctx, lis, e, serverTLS, s.ShutdownTimeout, logger)
}
