package edgeproxy

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"time"
)

// Serve runs e on lis until ctx ends, then drains for at most
// shutdownTimeout. With serverTLS it serves TLS (HTTP/2 and HTTP/1.1 by
// ALPN); without, HTTP/1.1 and cleartext HTTP/2 (h2c prior knowledge, as
// gRPC clients speak it).
func Serve(ctx context.Context, lis net.Listener, e *Edge, serverTLS *tls.Config, shutdownTimeout time.Duration, logger *slog.Logger) error {
	srv := &http.Server{
		Handler:           e,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       time.Hour,
		Protocols:         new(http.Protocols),
		HTTP2: &http.HTTP2Config{
			// Per client connection; the edge's own limit is MaxInFlight.
			MaxConcurrentStreams: 1000,
			SendPingTimeout:      10 * time.Second,
			PingTimeout:          10 * time.Second,
		},
		ErrorLog: slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	srv.Protocols.SetHTTP1(true)
	if serverTLS != nil {
		srv.Protocols.SetHTTP2(true)
		srv.TLSConfig = serverTLS
		lis = tls.NewListener(lis, serverTLS.Clone())
	} else {
		srv.Protocols.SetUnencryptedHTTP2(true)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	logger.InfoContext(ctx, "edge serving", "addr", lis.Addr().String(), "tls", serverTLS != nil, "max_in_flight", e.cfg.MaxInFlight)
	select {
	case err := <-served:
		return fmt.Errorf("edge: serve: %w", err)
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownTimeout)
	defer cancel()
	err := srv.Shutdown(sctx)
	if errors.Is(err, context.DeadlineExceeded) {
		logger.Warn("edge: drain timed out; closing", "shutdown_timeout_ms", shutdownTimeout.Milliseconds())
		err = srv.Close()
	}
	if serr := <-served; serr != nil && !errors.Is(serr, http.ErrServerClosed) {
		return serr
	}
	return err
}
