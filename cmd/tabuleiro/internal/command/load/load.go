// Package load is `tabuleiro load`: simulated players against a server
// through the public API, and the report of what they measured.
package load

import (
	"errors"
	"fmt"
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
		Short: e.T("cmd.loadgen.short"),
		Long: "Run simulated players against a server through the public API: each signs in\n" +
			"as a guest, queues for a Quoridor pairing, plays fast legal plies (pawn steps:\n" +
			"a few random ones, then straight to the goal), and queues again until the\n" +
			"duration is up; games in progress then get --drain to finish. A player whose\n" +
			"Play stream drops rejoins on the next --match address with the last event seen.\n" +
			"Progress goes to stderr every second; the report (games finished, plies/s, ply\n" +
			"round trip from the mover's send to the opponent's receipt, matchmaking wait,\n" +
			"errors by status code with the first message of each, and the processor time\n" +
			"per ply of each kind of server process found listening on this machine on the\n" +
			"--server, --match and --bot addresses, of Redis (--redis: INFO cpu) and of the\n" +
			"load generator, with Redis's commands per ply) to stdout. Any error\n" +
			"whose status code --allow-errors does not name fails the run (exit status 1):\n" +
			"a healthy server gives none; fault drills allow what they provoke\n" +
			"(e.g. --allow-errors Unavailable).",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg.Lobby = splitAddrs(servers)
			cfg.Match = splitAddrs(matchs)
			if len(cfg.Lobby) == 0 {
				return &cli.ExitError{Code: 2, Err: errors.New("--server is required")}
			}
			if baseMS > 0 {
				cfg.TimeControl = &gamev1.TimeControl{BaseMs: baseMS}
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
			rep.Write(e.Stdout)
			meter.Write(cmd.Context(), e.Stdout, rep.Plies)
			if rep.GamesFinished == 0 {
				return &cli.ExitError{Code: 1, Err: fmt.Errorf("no game finished")}
			}
			if bad := rep.Unexpected(allow); len(bad) > 0 {
				return &cli.ExitError{Code: 1, Err: fmt.Errorf("unexpected errors: %s", strings.Join(bad, "; "))}
			}
			return nil
		},
	}
	fl := c.Flags()
	fl.StringVar(&servers, "server", "", "lobby addresses, HOST:PORT[,HOST:PORT...]")
	fl.StringVar(&matchs, "match", "", "match addresses for Play streams (default: the --server addresses)")
	fl.StringVar(&bots, "bot", "", "bot addresses, HOST:PORT[,HOST:PORT...], for the processor-time figures only")
	fl.StringVar(&redisURL, "redis", "", "the servers' Redis (redis://HOST:PORT/DB), for its processor time and commands per ply")
	fl.IntVar(&cfg.Players, "players", 100, "simulated players")
	fl.DurationVar(&cfg.Duration, "duration", 10*time.Second, "how long players queue for new games")
	fl.DurationVar(&cfg.Drain, "drain", 10*time.Second, "how long games in progress may go on after --duration")
	fl.DurationVar(&cfg.Think, "think", 0, "each player's pause before a ply")
	fl.IntVar(&cfg.Wander, "wander", 20, "random pawn steps per seat before racing to the goal (game length)")
	fl.IntVar(&cfg.MaxGames, "max-games", 0, "stop queuing after this many games (0: no limit)")
	fl.Int64Var(&baseMS, "base-ms", 0, "clock base per seat in ms (0: the variant's default)")
	fl.Uint64Var(&cfg.Seed, "seed", 1, "seed of the players' choices")
	fl.BoolVar(&cfg.MatchAffinity, "affinity", false, "both seats of a match play on the same --match address, chosen by the match id, as the edge's match affinity does (the Play streams name their match in the tabuleiro-match-id header either way)")
	fl.IntVar(&cfg.ConnsPerAddr, "conns", 0, "gRPC connections per address (0: enough for every player's stream, 48 a connection)")
	fl.StringSliceVar(&allow, "allow-errors", nil, "status codes that do not fail the run (e.g. Unavailable,Aborted)")
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
