// Package bots is `tabuleiro bots`: matches and ladders between bot levels,
// in this process or through a bot service.
package bots

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
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
		Long:  e.T("cmd.bots.long"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if budgetMS < 0 {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.bots_budget", "budget", budgetMS)}
			}
			if !slices.Contains(gameword.Names(), game) {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.unknown_game", "game", strconv.Quote(game), "choice", gameword.Choice(e.P))}
			}
			if cfg.A == "" || cfg.B == "" {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.bots_ab", "levels", levelChoice())}
			}
			for flag, l := range map[string]string{"--a": cfg.A, "--b": cfg.B} {
				if err := checkLevel(e, flag, l); err != nil {
					return err
				}
			}
			cfg.Game = engine.Game(game)
			cfg.Budget = time.Duration(budgetMS) * time.Millisecond
			cfg.Seed = seed
			cfg.Progress = func(done int, r tournament.Result) {
				fmt.Fprintln(e.Stderr, text.T(e.P, "bots.progress", "done", done, "games", r.Config.Games, "a", r.Config.A, "b", r.Config.B,
					"wins", r.Wins, "draws", r.Draws, "losses", r.Losses, "score", percent(e.P, r.Score()), "elapsed", r.Elapsed.Round(time.Second)))
			}
			if server != "" {
				client, closeConn, err := dialBot(e.P, server, tokenKey)
				if err != nil {
					return &cli.ExitError{Code: 2, Err: err}
				}
				defer closeConn()
				cfg.Remote = client
			}
			res, err := tournament.Run(cmd.Context(), cfg)
			if res.Games() > 0 {
				writeMatch(e.Stdout, e.P, res)
			}
			return tournamentExit(err)
		},
	}
	f := c.Flags()
	f.StringVar(&game, "game", "quoridor", e.T("flag.rules.game", "games", strings.Join(gameword.Names(), ", ")))
	f.StringVar(&cfg.Variant, "variant", "", e.T("flag.bots.variant"))
	f.StringVar(&cfg.A, "a", "", e.T("flag.bots.a"))
	f.StringVar(&cfg.B, "b", "", e.T("flag.bots.b"))
	f.IntVar(&cfg.Games, "games", 20, e.T("flag.bots.games"))
	f.IntVar(&budgetMS, "budget", 0, e.T("flag.bots.budget"))
	f.IntVar(&cfg.Opening, "opening", 4, e.T("flag.bots.opening"))
	f.IntVar(&cfg.Parallel, "parallel", 0, e.T("flag.bots.parallel"))
	f.IntVar(&cfg.Threads, "threads", 1, e.T("flag.bots.threads"))
	f.Uint64Var(&seed, "seed", 1, e.T("flag.bots.seed"))
	f.StringVar(&server, "server", "", e.T("flag.bots.server"))
	f.StringVar(&tokenKey, "token-key", os.Getenv("TABULEIRO_TOKEN_KEY"), e.T("flag.bots.token_key"))
	c.Flags().Lookup("token-key").DefValue = "$TABULEIRO_TOKEN_KEY"
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
		Long:  e.T("cmd.bots.ladder.long"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if budgetMS < 0 {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.bots_budget", "budget", budgetMS)}
			}
			if !slices.Contains(gameword.Names(), game) {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.unknown_game", "game", strconv.Quote(game), "choice", gameword.Choice(e.P))}
			}
			cfg.Game = engine.Game(game)
			cfg.Budget = time.Duration(budgetMS) * time.Millisecond
			cfg.Progress = func(r tournament.Result) {
				fmt.Fprintln(e.Stderr, text.T(e.P, "bots.progress_match", "a", r.Config.A, "b", r.Config.B,
					"wins", r.Wins, "draws", r.Draws, "losses", r.Losses, "elapsed", r.Elapsed.Round(time.Second)))
			}
			if levels != "" {
				cfg.Levels = strings.Split(levels, ",")
				for _, l := range cfg.Levels {
					if err := checkLevel(e, "--levels", l); err != nil {
						return err
					}
				}
			}
			res, err := tournament.Ladder(cmd.Context(), cfg)
			if len(res.Ratings) > 0 {
				writeLadder(e.Stdout, e.P, res)
			}
			return tournamentExit(err)
		},
	}
	f := c.Flags()
	f.StringVar(&game, "game", "quoridor", e.T("flag.rules.game", "games", strings.Join(gameword.Names(), ", ")))
	f.StringVar(&cfg.Variant, "variant", "", e.T("flag.bots.variant"))
	f.StringVar(&levels, "levels", "", e.T("flag.bots.levels"))
	f.IntVar(&cfg.Games, "games", 10, e.T("flag.bots.ladder_games"))
	f.IntVar(&budgetMS, "budget", 300, e.T("flag.bots.ladder_budget"))
	f.IntVar(&cfg.Opening, "opening", 4, e.T("flag.bots.opening"))
	f.IntVar(&cfg.Parallel, "parallel", 0, e.T("flag.bots.parallel"))
	f.IntVar(&cfg.Threads, "threads", 1, e.T("flag.bots.threads"))
	f.Uint64Var(&cfg.Seed, "seed", 1, e.T("flag.bots.seed"))
	f.IntVar(&cfg.MaxPlies, "max-plies", 0, e.T("flag.bots.max_plies"))
	return c
}

// checkLevel refuses a level that no match plays (exit 2), naming the
// flag and the levels there are.
func checkLevel(e *cli.Env, flag, level string) error {
	if slices.Contains(tournament.Levels(), level) {
		return nil
	}
	return &cli.ExitError{Code: 2, Err: e.Errorf("error.bots_level", "flag", flag, "level", strconv.Quote(level), "levels", levelChoice())}
}

// levelChoice lists the levels a match plays.
func levelChoice() string {
	return strings.Join(tournament.Levels(), ", ")
}

// dialBot connects to a bot service with a service credential signed with
// the shared token key.
func dialBot(p *text.Printer, addr, key string) (botv1.BotServiceClient, func(), error) {
	if key == "" {
		return nil, nil, errors.New(text.T(p, "error.bots.token_key_required"))
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
