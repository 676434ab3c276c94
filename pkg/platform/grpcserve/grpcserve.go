// Package grpcserve runs a service's gRPC server the one way every
// Tabuleiro service runs it: health checking (grpc.health.v1) with every
// registered service SERVING, server reflection, OpenTelemetry tracing and
// metrics (otelgrpc stats handler), and the interceptors, outermost first:
// logging (one slog line per RPC), panic recovery, authentication. On
// ctx.Done() it marks health NOT_SERVING, waits DrainDelay, drains with
// GracefulStop and stops hard once ShutdownTimeout has passed.
//
// Long-lived streams (match.v1 Play, Follow, Watch) hold the drain until
// they end: their handlers should watch the same ctx that was passed to Run,
// send their drain notice and return.
//
// One port serves gRPC, gRPC-Web and the Connect protocol (see WebHandler):
// every call, whatever its protocol, runs through the same grpc.Server, its
// interceptors and its stats handler. A cleartext connection whose first
// request is native gRPC is served by grpc-go's own HTTP/2 transport (a
// stream costs it one goroutine and little memory: split.go). net/http
// serves every other connection, HTTP/1.1 and HTTP/2 alike (cleartext
// HTTP/2 with prior knowledge, h2c, in plaintext; by ALPN with TLS), and
// each request goes by its content type, not by its HTTP version:
// application/grpc to grpc.Server.ServeHTTP, gRPC-Web and Connect to the
// transcoder, anything else that is not an RPC to Options.HTTPHandler. A
// proxy in front whose connections may carry native gRPC and the browser
// protocols together needs Options.MixedConnections; the edge's HAProxy
// keeps native gRPC on connections of its own.
package grpcserve

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"slices"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/keepalive"
	"google.golang.org/grpc/reflection"

	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/telemetry"
)

// DefaultMaxConcurrentStreams is the streams one connection may hold at
// once unless Options.MaxConcurrentStreams says otherwise.
const DefaultMaxConcurrentStreams = 64

// DefaultShutdownTimeout is used when Options.ShutdownTimeout is 0.
const DefaultShutdownTimeout = 10 * time.Second

// Options configure a server.
type Options struct {
	// Addr is the TCP address to listen on (":8080"); ignored when Listener
	// is set.
	Addr string
	// Listener, when set, is served instead of listening on Addr (tests use
	// a bufconn listener). Run closes it.
	Listener net.Listener
	// ShutdownTimeout bounds the graceful drain; then the server stops hard.
	// 0 means DefaultShutdownTimeout.
	ShutdownTimeout time.Duration
	// DrainDelay is how long health stays NOT_SERVING before the drain
	// starts, so that load balancers stop sending new calls. 0 by default.
	DrainDelay time.Duration
	// Logger receives the server's lifecycle and per-RPC logs; nil discards.
	Logger *slog.Logger
	// Auth authenticates every RPC. Nil disables authentication: only for
	// tests of code that does not depend on the caller.
	Auth *auth.Interceptor
	// TLS, when set, serves TLS (see ServerTLS); plaintext otherwise (local
	// mode, a private network, or TLS terminated in front). Plaintext on a
	// non-loopback address is logged as a warning.
	TLS *tls.Config
	// MaxConnectionAge sends clients a GOAWAY after this long so that they
	// reconnect and re-resolve (spreading onto new pods); open streams are
	// not cut. 0 means DefaultMaxConnectionAge; negative disables it. It
	// applies where grpc-go's own transport serves the server (NewServer
	// with grpc.Server.Serve, and Run's native gRPC connections); not to
	// the connections Run serves by net/http.
	MaxConnectionAge time.Duration
	// Telemetry provides the tracer and meter; nil means telemetry.Disabled().
	Telemetry *telemetry.Telemetry
	// OnListen, when set, is called with the bound address before serving
	// (useful with ":0").
	OnListen func(net.Addr)
	// MaxConcurrentStreams caps the concurrent streams (calls) of one
	// client connection (HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS); 0 means
	// DefaultMaxConcurrentStreams. Per-player caps across connections are
	// the services' own (ratelimit.Streams).
	MaxConcurrentStreams uint32
	// ServerOptions are appended to the server's own options.
	ServerOptions []grpc.ServerOption
	// HTTPHandler, when set, serves the HTTP requests that are not RPCs
	// (any path other than /package.Service/Method of a registered
	// service): the web client's files, for example. Nil answers 404.
	HTTPHandler http.Handler
	// CORSOrigins are the origins that browsers may call the RPCs from
	// cross-origin ("https://play.example.com", or "*" for any); empty
	// means same-origin only. See ParseOrigins.
	CORSOrigins []string
	// Checks are what the service needs to serve (its Redis, …): Run runs
	// them every CheckInterval and reports health NOT_SERVING while any
	// fails, SERVING again once all pass (see Check).
	Checks []Check
	// CheckInterval is how often Checks run; 0 means DefaultCheckInterval.
	CheckInterval time.Duration
	// MixedConnections serves every cleartext connection by net/http, for
	// a proxy in front that may send native gRPC and gRPC-Web or Connect
	// calls on one of its connections to the server. By default a
	// cleartext connection whose first request is native gRPC is served by
	// grpc-go's own transport, which answers native gRPC only (split.go).
	MixedConnections bool
}

// DefaultCheckInterval is how often Run runs Options.Checks by default.
const DefaultCheckInterval = 2 * time.Second

// Check is a dependency the service cannot serve without.
type Check struct {
	Name string // "redis"
	// Func reports whether the dependency answers; it gets a context with
	// a timeout of the check interval.
	Func func(ctx context.Context) error
}

// NewServer builds the gRPC server with its interceptors, health and
// reflection, and calls register to add the service implementations. Every
// registered service is marked SERVING in the returned health server.
// Run uses it; so may tests that serve the server themselves.
func NewServer(opts Options, register func(*grpc.Server)) (*grpc.Server, *health.Server) {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
	}
	tel := opts.Telemetry
	if tel == nil {
		tel = telemetry.Disabled()
	}
	// localize sees every refusal (decode's, auth's, the handler's) and
	// adds the caller's LocalizedMessage; logging logs what is sent.
	unary := []grpc.UnaryServerInterceptor{loggingUnary(logger), localizeUnary(), recoveryUnary(), decodeUnary()}
	if opts.Auth != nil {
		unary = append(unary, authUnary(opts.Auth))
	}
	// The same chain for streams, as one interceptor (serverStream).
	stream := serverStream(logger, opts.Auth)
	age := opts.MaxConnectionAge
	switch {
	case age == 0:
		age = DefaultMaxConnectionAge
	case age < 0:
		age = 0 // infinity
	}
	maxStreams := opts.MaxConcurrentStreams
	if maxStreams == 0 {
		maxStreams = DefaultMaxConcurrentStreams
	}
	sopts := []grpc.ServerOption{
		grpc.MaxConcurrentStreams(maxStreams),
		// A connection holds its 32 KB write buffer only while it writes
		// (most connections carry idle streams).
		grpc.SharedWriteBuffer(true),
		grpc.ChainUnaryInterceptor(unary...),
		grpc.ChainStreamInterceptor(stream),
		// Ping idle connections so that a vanished client's streams end
		// (and its reconnection window starts) within about 40 s.
		// MaxConnectionAgeGrace stays infinite: a Play stream outlives
		// its connection's age and ends on its own.
		grpc.KeepaliveParams(keepalive.ServerParameters{Time: 30 * time.Second, Timeout: 10 * time.Second, MaxConnectionAge: age}),
		// A client pinging more often than every 10 s is sent GOAWAY
		// (too_many_pings) and its connection closed.
		grpc.KeepaliveEnforcementPolicy(keepalive.EnforcementPolicy{MinTime: 10 * time.Second, PermitWithoutStream: true}),
	}
	if tel.TracesEnabled || tel.MetricsEnabled {
		// Without an exporter the handler would only spend processor time
		// on every message.
		sopts = append(sopts, grpc.StatsHandler(tel.ServerHandler()))
	}
	if opts.TLS != nil {
		sopts = append(sopts, grpc.Creds(credentials.NewTLS(opts.TLS)))
	}
	sopts = append(sopts, opts.ServerOptions...)
	srv := grpc.NewServer(sopts...)

	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	reflection.Register(srv)
	if register != nil {
		register(srv)
	}
	for name := range srv.GetServiceInfo() {
		hs.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	return srv, hs
}

// Run serves until ctx is done, then shuts down gracefully (see the package
// comment). It returns nil after a clean shutdown, or the error that
// stopped it from listening or serving.
func Run(ctx context.Context, opts Options, register func(*grpc.Server)) error {
	logger := opts.Logger
	if logger == nil {
		logger = slog.New(slog.NewJSONHandler(io.Discard, nil))
		opts.Logger = logger
	}
	timeout := opts.ShutdownTimeout
	if timeout <= 0 {
		timeout = DefaultShutdownTimeout
	}
	lis := opts.Listener
	if lis == nil {
		var err error
		var lc net.ListenConfig
		if lis, err = lc.Listen(ctx, "tcp", opts.Addr); err != nil {
			return fmt.Errorf("listen on %s: %w", opts.Addr, err)
		}
	}
	// Cleartext connections whose first request is native gRPC go to
	// grpc-go's own transport (split.go).
	split := opts.TLS == nil && !opts.MixedConnections
	if split {
		opts.ServerOptions = append(slices.Clone(opts.ServerOptions), grpc.Creds(connCreds{}))
	}
	srv, hs := NewServer(opts, register)
	web, err := WebHandler(srv, opts.HTTPHandler, opts.CORSOrigins)
	if err != nil {
		_ = lis.Close()
		return err
	}
	maxStreams := opts.MaxConcurrentStreams
	if maxStreams == 0 {
		maxStreams = DefaultMaxConcurrentStreams
	}
	hsrv := &http.Server{
		Handler:           web,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
		ConnContext:       withConn, // TransportRTT
		Protocols:         new(http.Protocols),
		// As grpc-go's keepalive in NewServer: ping a silent connection
		// after 30 s and close it 10 s after an unanswered ping, so that a
		// vanished client's streams end.
		HTTP2: &http.HTTP2Config{
			MaxConcurrentStreams: int(maxStreams),
			SendPingTimeout:      30 * time.Second,
			PingTimeout:          10 * time.Second,
		},
	}
	hsrv.Protocols.SetHTTP1(true)
	hsrv.Protocols.SetHTTP2(true)
	if opts.OnListen != nil {
		opts.OnListen(lis.Addr())
	}
	// Ends with the error that stopped net/http (http.ErrServerClosed once
	// stopped on purpose).
	httpServed := make(chan error, 1)
	// Ends with the error that stopped grpc-go's own transport (nil once
	// stopped on purpose); never without the split.
	nativeServed := make(chan error, 1)
	lis = guardListener{lis}
	var splitter *splitListener
	switch {
	case opts.TLS != nil:
		hsrv.TLSConfig = opts.TLS.Clone()
		go func() { httpServed <- hsrv.ServeTLS(lis, "", "") }()
	case split:
		hsrv.Protocols.SetUnencryptedHTTP2(true)
		splitter = newSplitListener(lis, maxStreams)
		go splitter.run()
		go func() { httpServed <- hsrv.Serve(splitter.web) }()
		go func() { nativeServed <- srv.Serve(splitter.native) }()
	default:
		hsrv.Protocols.SetUnencryptedHTTP2(true)
		go func() { httpServed <- hsrv.Serve(lis) }()
	}
	stopAccepting := func() {
		if splitter != nil {
			_ = splitter.Close()
		}
	}
	logger.InfoContext(ctx, "grpc server serving", "addr", lis.Addr().String(), "tls", opts.TLS != nil,
		"protocols", "grpc, grpc-web, connect", "cors_origins", opts.CORSOrigins)
	if opts.TLS == nil && !isLoopback(lis.Addr()) {
		logger.WarnContext(ctx, "grpc server is plaintext on a non-loopback address: set a TLS certificate and key unless a private network or a TLS proxy protects it",
			"addr", lis.Addr().String())
	}

	checksDone := make(chan struct{})
	go func() {
		defer close(checksDone)
		runChecks(ctx, opts, srv, hs, logger)
	}()
	var failed error
	select {
	case err := <-httpServed:
		failed = fmt.Errorf("serve http: %w", err)
	case err := <-nativeServed:
		failed = fmt.Errorf("serve grpc: %w", err)
	case <-ctx.Done():
	}
	if failed != nil {
		stopAccepting()
		hs.Shutdown()
		_ = hsrv.Close()
		srv.Stop()
		return failed
	}
	<-checksDone

	// Shutdown: stop advertising, let load balancers notice, drain, stop.
	hs.Shutdown()
	logger.Info("grpc server draining", "drain_delay_ms", opts.DrainDelay.Milliseconds(), "shutdown_timeout_ms", timeout.Milliseconds())
	if opts.DrainDelay > 0 {
		delay := time.NewTimer(opts.DrainDelay)
		select {
		case <-delay.C:
		case err := <-httpServed:
			delay.Stop()
			stopAccepting()
			srv.Stop()
			return fmt.Errorf("serve http: %w", err)
		case err := <-nativeServed:
			delay.Stop()
			stopAccepting()
			_ = hsrv.Close()
			return fmt.Errorf("serve grpc: %w", err)
		}
	}
	stopAccepting()
	stopped := make(chan struct{})
	go func() {
		// net/http first: grpc.Server.GracefulStop would close the streams
		// it runs through ServeHTTP at once, before their drain notice.
		_ = hsrv.Shutdown(context.WithoutCancel(ctx))
		srv.GracefulStop()
		close(stopped)
	}()
	hard := time.NewTimer(timeout)
	defer hard.Stop()
	select {
	case <-stopped:
	case <-hard.C:
		logger.Warn("grpc graceful stop timed out; stopping", "shutdown_timeout_ms", timeout.Milliseconds())
		_ = hsrv.Close()
		srv.Stop()
		<-stopped
	}
	if err := <-httpServed; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve http: %w", err)
	}
	if split {
		// Serve called after GracefulStop (a context done at once) is
		// ErrServerStopped.
		if err := <-nativeServed; err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			return fmt.Errorf("serve grpc: %w", err)
		}
	}
	logger.Info("grpc server stopped")
	return nil
}

// runChecks runs opts.Checks every interval until ctx ends, and sets every
// service's health (and the server's, "") to NOT_SERVING while one fails,
// SERVING once all pass again; each change is logged once (WARN when a
// dependency is lost, INFO when it is back). Without checks it returns at
// once.
func runChecks(ctx context.Context, opts Options, srv *grpc.Server, hs *health.Server, logger *slog.Logger) {
	if len(opts.Checks) == 0 {
		return
	}
	every := opts.CheckInterval
	if every <= 0 {
		every = DefaultCheckInterval
	}
	names := []string{""}
	for name := range srv.GetServiceInfo() {
		if name != healthpb.Health_ServiceDesc.ServiceName {
			names = append(names, name)
		}
	}
	serving := true
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		var failed []string
		var errs []any
		for _, c := range opts.Checks {
			cctx, cancel := context.WithTimeout(telemetry.Untraced(ctx), every)
			err := c.Func(cctx)
			cancel()
			if err != nil && ctx.Err() == nil {
				failed = append(failed, c.Name)
				errs = append(errs, c.Name, err.Error())
			}
		}
		if ctx.Err() != nil {
			return
		}
		switch {
		case len(failed) > 0 && serving:
			serving = false
			logger.WarnContext(ctx, "health NOT_SERVING: a dependency is unreachable", append([]any{"failed", failed}, errs...)...)
			for _, n := range names {
				hs.SetServingStatus(n, healthpb.HealthCheckResponse_NOT_SERVING)
			}
		case len(failed) == 0 && !serving:
			serving = true
			logger.InfoContext(ctx, "health SERVING: every dependency answers again")
			for _, n := range names {
				hs.SetServingStatus(n, healthpb.HealthCheckResponse_SERVING)
			}
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
