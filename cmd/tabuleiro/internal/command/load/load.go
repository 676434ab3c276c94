// Package load is `tabuleiro load`: simulated players against a server
// through the public API, and the report of what they measured.
package load

import (
	"errors"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	loadgen "tabuleiro.dev/cmd/tabuleiro/internal/load"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

func New(e *cli.Env) *cobra.Command {
	var (
		cfg             loadgen.Config
		servers, matchs string
		bots, redisURL  string
		baseMS          int64
		allow           []string
	)
	c := &cobra.Command{
		Use:   "load",
		Short: e.T("cmd.load.short"),
		Long:  e.T("cmd.load.long"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.Lobby = splitAddrs(servers)
			cfg.Match = splitAddrs(matchs)
			if len(cfg.Lobby) == 0 {
				return &cli.ExitError{Code: 2, Err: errors.New(e.T("error.load.server_required"))}
			}
			if baseMS > 0 {
				cfg.TimeControl = &gamev1.TimeControl{BaseMs: baseMS}
			} else if cfg.Queues > 1 {
				return &cli.ExitError{Code: 2, Err: errors.New(e.T("error.load.queues_need_base"))}
			}
			cfg.Progress = e.Stderr
			matchAddrs := cfg.Match
			if len(matchAddrs) == 0 {
				matchAddrs = cfg.Lobby // one process serves both
			}
			meter, err := loadgen.NewMeter(cmd.Context(), [][2]string{{"lobby", servers}, {"match", strings.Join(matchAddrs, ",")}, {"bot", bots}}, redisURL)
			if err != nil {
				return &cli.ExitError{Code: 2, Err: err}
			}
			defer meter.Close()
			rep, err := loadgen.Run(cmd.Context(), cfg)
			if err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			rep.Write(e.Stdout, e.P)
			meter.Write(cmd.Context(), e.Stdout, e.P, rep.Plies)
			if rep.GamesFinished == 0 {
				return &cli.ExitError{Code: 1, Err: errors.New(e.T("error.load.no_game_finished"))}
			}
			if bad := rep.Unexpected(allow); len(bad) > 0 {
				return &cli.ExitError{Code: 1, Err: errors.New(e.T("error.load.unexpected", "errors", strings.Join(bad, "; ")))}
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&servers, "server", "", e.T("flag.load.server"))
	fl.StringVar(&matchs, "match", "", e.T("flag.load.match"))
	fl.StringVar(&bots, "bot", "", e.T("flag.load.bot"))
	fl.StringVar(&redisURL, "redis", "", e.T("flag.load.redis"))
	fl.IntVar(&cfg.Players, "players", 100, e.T("flag.load.players"))
	fl.DurationVar(&cfg.Duration, "duration", 10*time.Second, e.T("flag.load.duration"))
	fl.DurationVar(&cfg.Drain, "drain", 10*time.Second, e.T("flag.load.drain"))
	fl.DurationVar(&cfg.Think, "think", 0, e.T("flag.load.think"))
	fl.IntVar(&cfg.Wander, "wander", 20, e.T("flag.load.wander"))
	fl.IntVar(&cfg.MaxGames, "max-games", 0, e.T("flag.load.max_games"))
	fl.Int64Var(&baseMS, "base-ms", 0, e.T("flag.load.base_ms"))
	fl.IntVar(&cfg.Queues, "queues", 1, e.T("flag.load.queues"))
	fl.Uint64Var(&cfg.Seed, "seed", 1, e.T("flag.load.seed"))
	fl.BoolVar(&cfg.MatchAffinity, "affinity", false, e.T("flag.load.affinity"))
	fl.IntVar(&cfg.ConnsPerAddr, "conns", 0, e.T("flag.load.conns"))
	fl.StringSliceVar(&allow, "allow-errors", nil, e.T("flag.load.allow_errors"))
	return c
}

func splitAddrs(s string) []string {
	var out []string
	for _, a := range strings.Split(s, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}
