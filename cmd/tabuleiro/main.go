// Command tabuleiro plays Tabuleiro's games in a terminal, checks game
// records against the rules, and runs every service in one process.
//
// Usage: tabuleiro <command> [flags]; `tabuleiro help` lists the commands.
// Each command family is a package of internal/command; main only wires
// them into the root command (package cli).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/bots"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/config"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/load"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/login"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/migrate"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/play"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/records"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/review"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/rules"
	"tabuleiro.dev/cmd/tabuleiro/internal/command/serve"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := cli.Run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr, commands()...)
	stop()
	os.Exit(code)
}

// commands are tabuleiro's subcommands, in the order of its help.
func commands() []cli.Command {
	return []cli.Command{
		play.New,
		serve.New,
		records.NewWatch,
		records.NewHistory,
		records.NewStats,
		records.NewReplay,
		review.New,
		migrate.New,
		rules.New,
		bots.New,
		serve.NewEmbeddedRedis,
		load.New,
		config.New,
		login.New,
	}
}
