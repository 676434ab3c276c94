// Package bots is `tabuleiro bots`: matches and ladders between bot levels,
// in this process or through a bot service.
package bots

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/pkg/engine"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	"tabuleiro.dev/pkg/platform/auth"
	"tabuleiro.dev/services/bot/tournament"
)

func New(e *cli.Env) *cobra.Command {
	var (
		cfg      tournament.Config
		game     string
		budgetMS int
		server   string
		tokenKey string
		seed     uint64
	)
	c := &cobra.Command{
		Use:   "bots",
		Short: e.T("cmd.bots.short"),
		Long: "Play --games games between levels --a and --b (easy, medium, hard, expert)\n" +
			"directly through the engine, alternating who moves first, several games at a\n" +
			"time. Progress goes to standard error; the table (wins, draws, losses, score,\n" +
			"Elo difference with its 95% interval, think times) to standard output.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if budgetMS < 0 {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("--budget %d: must be 0 (level defaults) or more", budgetMS)}
			}
			cfg.Game = engine.Game(game)
			cfg.Budget = time.Duration(budgetMS) * time.Millisecond
			cfg.Seed = seed
			cfg.Progress = e.Stderr
			if server != "" {
				client, closeConn, err := dialBot(server, tokenKey)
				if err != nil {
					return &cli.ExitError{Code: 2, Err: err}
				}
				defer closeConn()
				cfg.Remote = client
			}
			res, err := tournament.Run(cmd.Context(), cfg)
			if res.Games() > 0 {
				res.WriteTable(e.Stdout)
			}
			return tournamentExit(err)
		},
	}
	f := c.Flags()
	f.StringVar(&game, "game", "quoridor", "game: "+strings.Join(gameword.Names(), ", "))
	f.StringVar(&cfg.Variant, "variant", "", "variant id (default: the game's first variant)")
	f.StringVar(&cfg.A, "a", "", "level of side A: easy, medium, hard, expert, a frozen past expert (expert-1) or the Quoridor sparring racer (racer)")
	f.StringVar(&cfg.B, "b", "", "level of side B")
	f.IntVar(&cfg.Games, "games", 20, "number of games")
	f.IntVar(&budgetMS, "budget", 0, "thinking time per ply in milliseconds (0: each level's default)")
	f.IntVar(&cfg.Opening, "opening", 4, "plies the easy level plays first in each game, shared by each pair of games with sides swapped")
	f.IntVar(&cfg.Parallel, "parallel", 0, "games played at once (0: GOMAXPROCS)")
	f.IntVar(&cfg.Threads, "threads", 1, "goroutines the expert searches on at budgets of 50 ms and more (Lazy SMP; 0: GOMAXPROCS / parallel); other levels use one, so 1 gives both sides the same processor time")
	f.Uint64Var(&seed, "seed", 1, "seed of the Banqi layouts and easy's choices")
	f.StringVar(&server, "server", "", "play through the bot service at this address (host:port, plaintext) instead of in this process")
	f.StringVar(&tokenKey, "token-key", os.Getenv("TABULEIRO_TOKEN_KEY"), "with --server: the services' token key, to sign a service credential")
	c.Flags().Lookup("token-key").DefValue = "$TABULEIRO_TOKEN_KEY"
	_ = c.MarkFlagRequired("a")
	_ = c.MarkFlagRequired("b")
	c.AddCommand(newBotsLadderCommand(e))
	return c
}

func newBotsLadderCommand(e *cli.Env) *cobra.Command {
	var (
		cfg      tournament.LadderConfig
		game     string
		budgetMS int
		levels   string
	)
	c := &cobra.Command{
		Use:   "ladder",
		Short: e.T("cmd.bots.ladder.short"),
		Long: "Play a round robin of --games games between every pair of --levels (default:\n" +
			"every level and the frozen past experts, such as expert-1) and print\n" +
			"Bradley-Terry ratings on the Elo scale, anchored at the first level (easy),\n" +
			"with 95% intervals, then every match. Progress goes to standard error.",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if budgetMS < 0 {
				return &cli.ExitError{Code: 2, Err: fmt.Errorf("--budget %d: must be 0 (level defaults) or more", budgetMS)}
			}
			cfg.Game = engine.Game(game)
			cfg.Budget = time.Duration(budgetMS) * time.Millisecond
			cfg.Progress = e.Stderr
			if levels != "" {
				cfg.Levels = strings.Split(levels, ",")
			}
			res, err := tournament.Ladder(cmd.Context(), cfg)
			if len(res.Ratings) > 0 {
				res.WriteTable(e.Stdout)
			}
			return tournamentExit(err)
		},
	}
	f := c.Flags()
	f.StringVar(&game, "game", "quoridor", "game: "+strings.Join(gameword.Names(), ", "))
	f.StringVar(&cfg.Variant, "variant", "", "variant id (default: the game's first variant)")
	f.StringVar(&levels, "levels", "", "comma-separated levels, the first rated 0 (default: easy,medium,hard,expert,expert-1)")
	f.IntVar(&cfg.Games, "games", 10, "games between each pair")
	f.IntVar(&budgetMS, "budget", 300, "thinking time per ply in milliseconds, the same for every level (0: each level's default)")
	f.IntVar(&cfg.Opening, "opening", 4, "plies the easy level plays first in each game, shared by each pair of games with sides swapped")
	f.IntVar(&cfg.Parallel, "parallel", 0, "games played at once (0: GOMAXPROCS)")
	f.IntVar(&cfg.Threads, "threads", 1, "goroutines the expert searches on at budgets of 50 ms and more (Lazy SMP; 0: GOMAXPROCS / parallel); other levels use one, so 1 gives both sides the same processor time")
	f.Uint64Var(&cfg.Seed, "seed", 1, "seed of the Banqi layouts and easy's choices")
	f.IntVar(&cfg.MaxPlies, "max-plies", 0, "plies after which a game is drawn (0: 1000)")
	return c
}

// dialBot connects to a bot service with a service credential signed with
// the shared token key.
func dialBot(addr, key string) (botv1.BotServiceClient, func(), error) {
	if key == "" {
		return nil, nil, errors.New("--server needs the services' token key: --token-key or $TABULEIRO_TOKEN_KEY")
	}
	k, err := auth.ParseKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("--token-key: %w", err)
	}
	iss, err := auth.NewIssuer(k)
	if err != nil {
		return nil, nil, fmt.Errorf("--token-key: %w", err)
	}
	conn, err := grpc.NewClient(addr,
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(auth.NewServiceCredentials(iss, "tabuleiro-bots", 0)))
	if err != nil {
		return nil, nil, fmt.Errorf("--server %s: %w", addr, err)
	}
	return botv1.NewBotServiceClient(conn), func() { _ = conn.Close() }, nil
}

// tournamentExit maps a match's or a ladder's error to the command's exit:
// 2 for a bad configuration (levels, variant), 1 for a failure while
// playing, nil for none.
func tournamentExit(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, tournament.ErrBadConfig) || errors.Is(err, engine.ErrUnknownVariant):
		return &cli.ExitError{Code: 2, Err: err}
	default:
		return &cli.ExitError{Code: 1, Err: err}
	}
}
