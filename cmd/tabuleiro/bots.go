package main

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/bot/tournament"
)

func newBotsCommand(e *env) *cobra.Command {
	var (
		cfg      tournament.Config
		game     string
		budgetMS int
		server   string
		seed     uint64
	)
	c := &cobra.Command{
		Use:   "bots",
		Short: "Play bot levels against each other and measure their strength",
		Long: "Play --games games between levels --a and --b (easy, medium, hard, expert)\n" +
			"directly through the engine, alternating who moves first, several games at a\n" +
			"time. Progress goes to standard error; the table (wins, draws, losses, score,\n" +
			"Elo difference with its 95% interval, think times) to standard output.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if server != "" {
				return &exitError{code: 2, err: errors.New("--server is not supported yet: games run through the engine only")}
			}
			if budgetMS < 0 {
				return &exitError{code: 2, err: fmt.Errorf("--budget %d: must be 0 (level defaults) or more", budgetMS)}
			}
			cfg.Game = engine.Game(game)
			cfg.Budget = time.Duration(budgetMS) * time.Millisecond
			cfg.Seed = seed
			cfg.Progress = e.stderr
			res, err := tournament.Run(cmd.Context(), cfg)
			if res.Games() > 0 {
				res.WriteTable(e.stdout)
			}
			if err != nil {
				if errors.Is(err, tournament.ErrBadConfig) || errors.Is(err, engine.ErrUnknownVariant) {
					return &exitError{code: 2, err: err}
				}
				return &exitError{code: 1, err: err}
			}
			return nil
		},
	}
	f := c.Flags()
	f.StringVar(&game, "game", "quoridor", "game: "+strings.Join(gameNames(), ", "))
	f.StringVar(&cfg.Variant, "variant", "", "variant id (default: the game's first variant)")
	f.StringVar(&cfg.A, "a", "", "level of side A: easy, medium, hard or expert")
	f.StringVar(&cfg.B, "b", "", "level of side B")
	f.IntVar(&cfg.Games, "games", 20, "number of games")
	f.IntVar(&budgetMS, "budget", 0, "thinking time per ply in milliseconds (0: each level's default)")
	f.IntVar(&cfg.Opening, "opening", 4, "plies the easy level plays first in each game, shared by each pair of games with sides swapped")
	f.IntVar(&cfg.Parallel, "parallel", 0, "games played at once (0: GOMAXPROCS)")
	f.Uint64Var(&seed, "seed", 1, "seed of the Banqi layouts and easy's choices")
	f.StringVar(&server, "server", "", "play through the bot service at this address (not supported yet)")
	_ = c.MarkFlagRequired("a")
	_ = c.MarkFlagRequired("b")
	return c
}
