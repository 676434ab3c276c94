// Command match runs the match service: the authority on games in
// progress (DESIGN.md). Configuration: MATCH_* variables (internal/config)
// and the OTEL_* ones (telemetry).
package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/redis/go-redis/extra/redisotel/v9"
	"github.com/redis/go-redis/v9"

	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/ratelimit"
	"tabuleiro.dev/pkg/platform/redisconn"
	"tabuleiro.dev/pkg/platform/signin"
	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/pkg/platform/telemetry/pgxtrace"
	"tabuleiro.dev/services/match/internal/botclient"
	"tabuleiro.dev/services/match/internal/config"
	"tabuleiro.dev/services/match/internal/match"
	"tabuleiro.dev/services/match/internal/recorder"
	"tabuleiro.dev/services/match/internal/redisstore"
	"tabuleiro.dev/services/match/matchserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Getenv, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "match:", err)
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
	if cfg.InstanceID == "" {
		cfg.InstanceID = "match-" + rand.Text()[:10]
	}
	tel, err := telemetry.Setup(ctx, "match", getenv, logger)
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	defer func() { _ = tel.Shutdown(context.WithoutCancel(ctx)) }()
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
	pcfg, err := pgx.ParseConfig(cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("database url: %w", err)
	}
	pcfg.Tracer = pgxtrace.New(tel.TracerProvider)
	db := stdlib.OpenDB(*pcfg)
	defer db.Close()
	verifier, err := auth.NewVerifier(cfg.TokenKey, auth.WithPreviousKeys(cfg.PreviousTokenKeys...))
	if err != nil {
		return fmt.Errorf("token verifier: %w", err)
	}
	var bot match.Bot
	deps := []telemetry.Dependency{{Name: "postgres", Check: db.PingContext}}
	if cfg.BotAddr != "" {
		issuer, err := auth.NewIssuer(cfg.TokenKey)
		if err != nil {
			return fmt.Errorf("token issuer: %w", err)
		}
		conn, err := grpcserve.Dial(cfg.BotAddr, grpcserve.DialOptions{CAFile: cfg.TLSCAFile, Telemetry: tel,
			PerRPC: auth.NewServiceCredentials(issuer, "match", 0)})
		if err != nil {
			return fmt.Errorf("bot client: %w", err)
		}
		defer conn.Close()
		bot = botclient.New(botv1.NewBotServiceClient(conn))
		deps = append(deps, telemetry.Dependency{Name: "bot", Check: grpcserve.HealthOf(conn)})
	}
	// For the alerts: Redis, its replicas and Sentinel quorum, PostgreSQL
	// and the bot service, read at each metrics collection.
	if err := redisconn.Observe(rdb, cfg.RedisURL, deps...); err != nil {
		return fmt.Errorf("observe dependencies: %w", err)
	}
	srv := matchserver.New(ctx, matchserver.Deps{Redis: rdb, DB: db, Bot: bot, Logger: logger}, serverConfig(cfg))
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	runErr := make(chan error, 1)
	wg.Go(func() {
		runErr <- srv.Run(ctx)
		cancel() // the server stops with its background work
	})
	err = grpcserve.Run(ctx, grpcserve.Options{
		Addr: cfg.GRPCAddr, ShutdownTimeout: cfg.ShutdownTimeout, Logger: logger, Telemetry: tel, TLS: serverTLS,
		CORSOrigins: cfg.CORSOrigins, MixedConnections: cfg.MixedConnections,
		Auth: auth.NewInterceptor(verifier, auth.Policy{ServiceOnly: matchserver.ServiceOnly(), SignIns: signIns(rdb, cfg.LobbyKeyPrefix)}),
		// Live games are in Redis: NOT_SERVING without it. PostgreSQL is
		// not checked: finished games wait in the outbox until it is back.
		Checks: []grpcserve.Check{{Name: "redis", Func: redisconn.Ping(rdb)}}, CheckInterval: cfg.HealthCheckInterval,
	}, srv.Register)
	wg.Wait()
	if rerr := <-runErr; err == nil {
		err = rerr
	}
	return err
}

// serverConfig is the match server's configuration from the service's.
func serverConfig(cfg config.Config) matchserver.Config {
	sc := matchserver.Config{
		KeyPrefix: cfg.KeyPrefix, InstanceID: cfg.InstanceID, Migrate: true,
		Store: redisstore.Options{WaitReplicas: cfg.RedisWaitReplicas, WaitTimeout: cfg.RedisWaitTimeout, JSON: cfg.RedisJSON,
			Compat: cfg.RedisCompat},
		Match: match.Config{ReconnectWindow: cfg.ReconnectWindow, FirstPlyTimeout: cfg.FirstPlyTimeout, SweepInterval: cfg.SweepInterval,
			UntimedBotWait: cfg.UntimedBotWait, LeaseTTL: cfg.PresenceTTL, LeaseRenew: cfg.PresenceTTL / 3},
		Recorder: recorder.Config{WaitReplicas: cfg.RecorderWaitReplicas, WaitTimeout: cfg.RedisWaitTimeout},
	}
	sc.Store.LiveTTL = matchserver.LiveTTL(sc.Match)
	sc.Limits = matchserver.Limits{
		Calls:        ratelimit.Rule{What: "match calls", Rate: cfg.CallRate, Burst: cfg.CallBurst, Period: time.Second},
		PlayMessages: ratelimit.Rule{What: "messages on this Play stream", Rate: cfg.PlayMessageRate, Burst: cfg.PlayMessageBurst, Period: time.Second},
	}
	sc.MaxStreams, sc.MaxAddressStreams = cfg.MaxStreams, cfg.MaxAddressStreams
	sc.Unlimited = cfg.RateLimitsOff
	sc.TrustedProxies = cfg.TrustedProxies
	return sc
}

// signIns checks player tokens against the lobby's sign-ins under prefix
// (none when prefix is empty). A sign-in found live is read again after
// 5 s: a signed-out token is refused that much later, and a player's plies
// cost one more Redis read in 5 s rather than one each.
func signIns(rdb redis.UniversalClient, prefix string) auth.SignIns {
	if prefix == "" {
		return nil
	}
	return signin.New(rdb, prefix, 5*time.Second)
}
