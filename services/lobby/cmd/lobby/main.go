// Command lobby serves tabuleiro.lobby.v1 LobbyService. Configuration:
// LOBBY_* variables (internal/config) and the OTEL_* ones (telemetry).
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/extra/redisotel/v9"

	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/redisconn"
	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/pkg/platform/telemetry/pgxtrace"
	"tabuleiro.dev/services/lobby/internal/config"
	"tabuleiro.dev/services/lobby/internal/matchclient"
	"tabuleiro.dev/services/lobby/internal/matchmaking"
	"tabuleiro.dev/services/lobby/lobbyserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "lobby:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	cfg, err := config.Load(getenv)
	if err != nil {
		return fmt.Errorf("load config: %w", err)
	}
	logger := telemetry.NewLogger(stdout, cfg.LogLevel)
	redisconn.LogTo(logger) // go-redis's own lines as JSON too
	tel, err := telemetry.Setup(ctx, "lobby", getenv, logger)
	if err != nil {
		return fmt.Errorf("set up telemetry: %w", err)
	}
	defer func() {
		if err := tel.Shutdown(context.WithoutCancel(ctx)); err != nil {
			logger.Warn("telemetry shutdown", "err", err)
		}
	}()
	serverTLS, err := grpcserve.ServerTLS(cfg.TLSCertFile, cfg.TLSKeyFile)
	if err != nil {
		return err
	}
	rdb, err := redisconn.Open(cfg.RedisURL)
	if err != nil {
		return err
	}
	defer rdb.Close()
	// Traced only with an exporter: the hook costs every command a stack walk.
	if tel.TracesEnabled {
		if err := redisotel.InstrumentTracing(rdb, redisotel.WithTracerProvider(tel.TracerProvider), redisotel.WithDBStatement(false)); err != nil {
			return fmt.Errorf("trace redis: %w", err)
		}
	}
	pcfg, err := pgxpool.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("parse database url: %w", err)
	}
	pcfg.ConnConfig.Tracer = pgxtrace.New(tel.TracerProvider)
	db, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer db.Close()
	iss, err := auth.NewIssuer(cfg.TokenKey)
	if err != nil {
		return fmt.Errorf("token issuer: %w", err)
	}
	ver, err := auth.NewVerifier(cfg.TokenKey, auth.WithPreviousKeys(cfg.PreviousTokenKeys...))
	if err != nil {
		return fmt.Errorf("token verifier: %w", err)
	}
	// CreateMatch (idempotent on its request id) and ListMatches (a read)
	// answered UNAVAILABLE by a replica that drains or died under the
	// call are sent again to another replica (grpcserve.Retrying).
	conn, err := grpcserve.Dial(cfg.MatchAddr, grpcserve.DialOptions{CAFile: cfg.TLSCAFile, Telemetry: tel,
		PerRPC:        auth.NewServiceCredentials(iss, "lobby", time.Hour),
		ServiceConfig: grpcserve.Retrying(matchv1.MatchService_ServiceDesc.ServiceName, "CreateMatch", "ListMatches")})
	if err != nil {
		return fmt.Errorf("match service client: %w", err)
	}
	defer conn.Close()
	// For the alerts: Redis, its replicas and Sentinel quorum, PostgreSQL
	// and the match service, read at each metrics collection.
	if err := redisconn.Observe(rdb, cfg.RedisURL,
		telemetry.Dependency{Name: "postgres", Check: db.Ping},
		telemetry.Dependency{Name: "match", Check: grpcserve.HealthOf(conn)}); err != nil {
		return fmt.Errorf("observe dependencies: %w", err)
	}
	var bot botv1.BotServiceClient
	if cfg.BotAddr != "" {
		botConn, err := grpcserve.Dial(cfg.BotAddr, grpcserve.DialOptions{CAFile: cfg.TLSCAFile, Telemetry: tel,
			PerRPC: auth.NewServiceCredentials(iss, "lobby", time.Hour)})
		if err != nil {
			return fmt.Errorf("bot service client: %w", err)
		}
		defer botConn.Close()
		bot = botv1.NewBotServiceClient(botConn)
	}
	lob, err := lobbyserver.New(ctx, lobbyserver.Deps{Redis: rdb, DB: db, Issuer: iss, Verifier: ver,
		Matches: matchclient.New(matchv1.NewMatchServiceClient(conn)), Logger: logger, Bot: bot},
		lobbyserver.Config{TokenTTL: cfg.TokenTTL, RefreshTTL: cfg.RefreshTTL, BotOfferAfter: cfg.BotOfferAfter,
			Matchmaking: matchmaking.Config{TicketTTL: cfg.TicketTTL}, TrustedProxies: cfg.TrustedProxies, Unlimited: cfg.RateLimitsOff,
			DeviceURL: cfg.DeviceURL,
			Exempt:    cfg.RateLimitExempt, Passkeys: lobbyserver.PasskeyConfig{RPID: cfg.WebAuthnRPID, Origins: cfg.WebAuthnOrigins,
				ChallengeTTL: cfg.PasskeyChallengeTTL}})
	if err != nil {
		return fmt.Errorf("build lobby: %w", err)
	}
	bgCtx, stopBG := context.WithCancel(ctx)
	defer stopBG()
	bg := make(chan error, 1)
	go func() { bg <- lob.Run(bgCtx) }()
	err = grpcserve.Run(ctx, grpcserve.Options{Addr: cfg.GRPCAddr, ShutdownTimeout: cfg.ShutdownTimeout, Logger: logger,
		TLS: serverTLS, Telemetry: tel, Auth: auth.NewInterceptor(ver, lobbyserver.AuthPolicy()), CORSOrigins: cfg.CORSOrigins,
		MixedConnections: cfg.MixedConnections,
		// Without Redis no sign-in, room or ticket works: NOT_SERVING.
		Checks: []grpcserve.Check{{Name: "redis", Func: redisconn.Ping(rdb)}}, CheckInterval: cfg.HealthCheckInterval,
	}, lob.Register)
	stopBG()
	if bgErr := <-bg; err == nil {
		err = bgErr
	}
	return err
}
