// Command match runs the match service: the authority on games in
// progress (DESIGN.md). Configuration: MATCH_* variables (internal/config).
package main

import (
	"context"
	"crypto/rand"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"sync"
	"syscall"

	_ "github.com/jackc/pgx/v5/stdlib" // the database/sql driver "pgx"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/services/match/internal/botclient"
	"tabuleiro.dev/services/match/internal/config"
	"tabuleiro.dev/services/match/internal/match"
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
	logger := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: cfg.LogLevel}))
	if cfg.InstanceID == "" {
		cfg.InstanceID = "match-" + rand.Text()[:10]
	}
	tel, err := telemetry.Setup(ctx, "match", getenv)
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	defer func() { _ = tel.Shutdown(context.WithoutCancel(ctx)) }()

	ropt, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("redis url: %w", err)
	}
	rdb := redis.NewClient(ropt)
	defer rdb.Close()
	db, err := sql.Open("pgx", cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer db.Close()
	verifier, err := auth.NewVerifier(cfg.TokenKey)
	if err != nil {
		return fmt.Errorf("token verifier: %w", err)
	}
	var bot match.Bot
	if cfg.BotAddr != "" {
		issuer, err := auth.NewIssuer(cfg.TokenKey)
		if err != nil {
			return fmt.Errorf("token issuer: %w", err)
		}
		conn, err := grpc.NewClient(cfg.BotAddr,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithPerRPCCredentials(auth.NewServiceCredentials(issuer, "match", 0)),
			grpc.WithStatsHandler(tel.ClientHandler()))
		if err != nil {
			return fmt.Errorf("bot client: %w", err)
		}
		defer conn.Close()
		bot = botclient.New(botv1.NewBotServiceClient(conn))
	}
	srv := matchserver.New(ctx, matchserver.Deps{Redis: rdb, DB: db, Bot: bot, Logger: logger}, matchserver.Config{
		KeyPrefix: cfg.KeyPrefix, InstanceID: cfg.InstanceID, Migrate: true,
		Match: match.Config{ReconnectWindow: cfg.ReconnectWindow, FirstPlyTimeout: cfg.FirstPlyTimeout, SweepInterval: cfg.SweepInterval,
			LeaseTTL: cfg.PresenceTTL, LeaseRenew: cfg.PresenceTTL / 3},
	})
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	runErr := make(chan error, 1)
	wg.Go(func() {
		runErr <- srv.Run(ctx)
		cancel() // the server stops with its background work
	})
	err = grpcserve.Run(ctx, grpcserve.Options{
		Addr: cfg.GRPCAddr, ShutdownTimeout: cfg.ShutdownTimeout, Logger: logger, Telemetry: tel,
		Auth: auth.NewInterceptor(verifier, auth.Policy{ServiceOnly: matchserver.ServiceOnly()}),
	}, srv.Register)
	wg.Wait()
	if rerr := <-runErr; err == nil {
		err = rerr
	}
	return err
}
