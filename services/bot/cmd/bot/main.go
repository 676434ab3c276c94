// Command bot serves tabuleiro.bot.v1.BotService: stateless ply selection
// at the easy, medium, hard and expert levels. Configuration is BOT_*
// variables (see botserver.Config) and the OTEL_* ones.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"tabuleiro.dev/pkg/platform/telemetry"
	"tabuleiro.dev/services/bot/botserver"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bot:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	cfg, err := botserver.Load(getenv)
	if err != nil {
		return fmt.Errorf("load config: %w", err)
	}
	logger := telemetry.NewLogger(stdout, cfg.LogLevel)
	tel, err := telemetry.Setup(ctx, "bot", getenv, logger)
	if err != nil {
		return fmt.Errorf("set up telemetry: %w", err)
	}
	defer func() {
		if err := tel.Shutdown(context.WithoutCancel(ctx)); err != nil {
			logger.Warn("telemetry shutdown", "err", err)
		}
	}()
	return botserver.Run(ctx, cfg, botserver.Deps{Logger: logger, Telemetry: tel})
}
