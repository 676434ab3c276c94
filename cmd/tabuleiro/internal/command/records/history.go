// Package records is what the terminal shows of games played: `history`,
// `stats`, `watch` (a match as a spectator) and `replay` (a record file or a
// game of the history).
package records

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/cmd/tabuleiro/internal/session"
	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
)

func NewHistory(e *cli.Env) *cobra.Command {
	var f session.Flags
	var n int32
	c := &cobra.Command{
		Use:   "history",
		Short: e.T("cmd.history.short"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.WithIdentity(cmd.Context(), e, func(cn *session.Conn, me client.Player) error {
				resp, err := cn.C.Lobby.ListGames(me.Context(cmd.Context()), &lobbyv1.ListGamesRequest{PageSize: n})
				if err != nil {
					return &cli.ExitError{Code: 1, Err: e.Errorf("error.list_games", "error", err)}
				}
				f.OnlineHint(e, "history")
				if len(resp.GetGames()) == 0 {
					if f.Server != "" {
						// Each server keeps its own players and games.
						termtext.Fprintln(e.Stdout, e.T("history.none_on", "server", f.Server, "name", me.Name))
						return nil
					}
					termtext.Fprintln(e.Stdout, e.T("history.none"))
					return nil
				}
				return writeHistory(e, resp.GetGames(), termtext.Width(e.Stdout))
			})
		},
	}
	f.Register(e, c)
	c.Flags().Int32Var(&n, "n", 20, e.T("flag.history.n"))
	return c
}

// now is the clock history's dates are read against (tests set it).
var now = time.Now

// writeHistory writes the games as a table that fits width columns
// (fitRows).
func writeHistory(e *cli.Env, games []*lobbyv1.MatchSummary, width int) error {
	rows := [][]string{strings.Split(e.T("history.head"), "\t")}
	// The dates without their year, when every game ended this year.
	thisYear := make([]string, 0, len(games))
	for _, g := range games {
		ended := g.GetEndedAt().AsTime().Local()
		rows = append(rows, []string{
			text.Date(e.P, ended), gameword.Lower(g.GetGame()), text.Variant(e.P, g.GetGame(), g.GetVariant()),
			opponentName(e.P, g), resultFor(e.P, g), e.P.Number(g.GetPlyCount()), g.GetMatchId()})
		if ended.Year() == now().Year() {
			thisYear = append(thisYear, text.DateThisYear(e.P, ended))
		}
	}
	if len(thisYear) != len(games) {
		thisYear = nil
	}
	w := tabwriter.NewWriter(e.Stdout, 0, 4, colGap, ' ', 0)
	for _, r := range fitRows(rows, thisYear, width) {
		fmt.Fprintln(w, strings.Join(r, "\t"))
	}
	return w.Flush()
}

func opponentName(pr *text.Printer, g *lobbyv1.MatchSummary) string {
	for _, p := range g.GetParticipants() {
		if p.GetSeat() != g.GetYourSeat() {
			return text.PlayerName(pr, p)
		}
	}
	return "-"
}

// resultFor says how a game went for the caller: won, lost or drawn, and
// why.
func resultFor(p *text.Printer, g *lobbyv1.MatchSummary) string {
	o := g.GetOutcome()
	reason := text.Reason(p, o.GetReason())
	switch {
	case o.GetReason() == gamev1.Reason_REASON_ABORTED:
		return text.T(p, "result.aborted")
	case o.GetResult() == gamev1.Result_RESULT_DRAW:
		return text.T(p, "result.draw", "reason", reason)
	case o.GetResult() != gamev1.Result_RESULT_WIN:
		return text.T(p, "outcome.ongoing")
	case o.GetWinner() == g.GetYourSeat():
		return text.T(p, "result.won", "reason", reason)
	}
	return text.T(p, "result.lost", "reason", reason)
}

func NewStats(e *cli.Env) *cobra.Command {
	var f session.Flags
	c := &cobra.Command{
		Use:   "stats",
		Short: e.T("cmd.stats.short"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.WithIdentity(cmd.Context(), e, func(cn *session.Conn, me client.Player) error {
				resp, err := cn.C.Lobby.GetStats(me.Context(cmd.Context()), &lobbyv1.GetStatsRequest{})
				if err != nil {
					return &cli.ExitError{Code: 1, Err: e.Errorf("error.stats", "error", err)}
				}
				f.OnlineHint(e, "stats")
				fmt.Fprintf(e.Stdout, "%s (%s)\n\n", resp.GetDisplayName(), resp.GetPlayerId())
				// One table per section, each printed only when it has
				// rows: an empty one would be a line of padding.
				if len(resp.GetRatings()) == 0 {
					fmt.Fprintln(e.Stdout, e.T("stats.no_ratings"))
				} else {
					w := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(w, e.T("stats.ratings_head"))
					for _, r := range resp.GetRatings() {
						fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", gameword.Lower(r.GetGame()), text.Variant(e.P, r.GetGame(), r.GetVariant()), e.P.Number(int(math.Round(r.GetRating()))),
							e.P.Number(int(math.Round(r.GetDeviation()))), e.P.Number(r.GetGames()))
					}
					if err := w.Flush(); err != nil {
						return err
					}
				}
				// Every level of every game, as the web lists them: a level
				// not played yet is a row of zeros.
				fmt.Fprintln(e.Stdout)
				w := tabwriter.NewWriter(e.Stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, e.T("stats.bots_head"))
				for _, g := range games.List() {
					for _, l := range botLevels() {
						var r *lobbyv1.BotRecord
						for _, b := range resp.GetBotRecords() {
							if b.GetGame() == gameword.Proto(g) && b.GetLevel() == l {
								r = b
							}
						}
						fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", g, text.Level(e.P, l), e.P.Number(r.GetWins()), e.P.Number(r.GetDraws()), e.P.Number(r.GetLosses()))
					}
				}
				return w.Flush()
			})
		},
	}
	f.Register(e, c)
	return c
}

// botLevels are the levels a player can meet, weakest first.
func botLevels() []gamev1.BotLevel {
	var out []gamev1.BotLevel
	for v := range gamev1.BotLevel_name {
		if v != 0 {
			out = append(out, gamev1.BotLevel(v))
		}
	}
	slices.Sort(out)
	return out
}
