// Command lobby serves tabuleiro.lobby.v1 LobbyService.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/pkg/platform/grpcserve"
	"tabuleiro.dev/services/lobby/internal/config"
	"tabuleiro.dev/services/lobby/internal/matchclient"
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
	logger := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: cfg.LogLevel}))
	ropts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("parse redis url: %w", err)
	}
	rdb := redis.NewClient(ropts)
	defer rdb.Close()
	db, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err != nil {
		return fmt.Errorf("open database: %w", err)
	}
	defer db.Close()
	iss, err := auth.NewIssuer(cfg.AuthKey)
	if err != nil {
		return fmt.Errorf("token issuer: %w", err)
	}
	ver, err := auth.NewVerifier(cfg.AuthKey)
	if err != nil {
		return fmt.Errorf("token verifier: %w", err)
	}
	conn, err := grpc.NewClient(cfg.MatchAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(auth.NewServiceCredentials(iss, "lobby", time.Hour)))
	if err != nil {
		return fmt.Errorf("dial match service: %w", err)
	}
	defer conn.Close()
	lob, err := lobbyserver.New(ctx, lobbyserver.Deps{Redis: rdb, DB: db, Issuer: iss, Verifier: ver,
		Matches: matchclient.New(matchv1.NewMatchServiceClient(conn)), Logger: logger},
		lobbyserver.Config{TokenTTL: cfg.TokenTTL, BotOfferAfter: cfg.BotOfferAfter})
	if err != nil {
		return fmt.Errorf("build lobby: %w", err)
	}
	bgCtx, stopBG := context.WithCancel(ctx)
	defer stopBG()
	bg := make(chan error, 1)
	go func() { bg <- lob.Run(bgCtx) }()
	err = grpcserve.Run(ctx, grpcserve.Options{Addr: cfg.GRPCAddr, ShutdownTimeout: cfg.ShutdownTimeout, Logger: logger,
		Auth: auth.NewInterceptor(ver, lobbyserver.AuthPolicy())}, lob.Register)
	stopBG()
	if bgErr := <-bg; err == nil {
		err = bgErr
	}
	return err
}
