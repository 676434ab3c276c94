package records

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/cmd/tabuleiro/internal/session"
	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/cmd/tabuleiro/internal/tui"
	"tabuleiro.dev/pkg/engine"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/affinity"
)

func NewWatch(e *cli.Env) *cobra.Command {
	var f session.Flags
	c := &cobra.Command{
		Use:   "watch MATCH",
		Short: e.T("cmd.watch.short"),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.watch_usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.WithIdentity(cmd.Context(), e, func(cn *session.Conn, me client.Player) error {
				return watch(cmd.Context(), e, cn.C, me, args[0])
			})
		},
	}
	f.Register(e, c)
	return c
}

// watch prints the spectators' view of a match: the board after the
// snapshot and after each ply, drawn as play's game screen draws it,
// then the outcome. A line "q" on in (or Ctrl-C) stops it,
// which is no error.
func watch(ctx context.Context, e *cli.Env, c *client.Client, me client.Player, id string) error {
	in, out := e.Stdin, e.Stdout
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	go func() {
		sc := bufio.NewScanner(in)
		for sc.Scan() {
			if strings.EqualFold(strings.TrimSpace(sc.Text()), "q") {
				stop()
				return
			}
		}
	}()
	stopped := func() error {
		fmt.Fprintln(out, e.T("watch.stopped", "match", id))
		return nil
	}
	s, err := c.Match.Watch(affinity.Context(me.Context(ctx), id), &matchv1.WatchRequest{MatchId: id})
	if err != nil {
		if ctx.Err() != nil {
			return stopped()
		}
		return &cli.ExitError{Code: 1, Err: e.Errorf("error.watch", "match", id, "error", session.ReachErr(e.P, err, c.Target()))}
	}
	// The boards are drawn as play's game screen draws them (package
	// tui), from the match as it stands: its view, seats and plies.
	var cur *matchv1.Match
	board := func() { fmt.Fprint(out, tui.Board(e.P, cur)) }
	for {
		r, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return stopped()
			}
			return &cli.ExitError{Code: 1, Err: e.Errorf("error.watch", "match", id, "error", session.ReachErr(e.P, err, c.Target()))}
		}
		switch {
		case r.GetSnapshot() != nil:
			m := r.GetSnapshot()
			var names []string
			for _, st := range m.GetSeats() {
				names = append(names, text.PlayerName(e.P, st.GetParticipant()))
			}
			termtext.Fprintln(out, e.T("watch.head", "game", text.Game(e.P, m.GetGame()), "variant", text.Variant(e.P, m.GetGame(), m.GetVariant()), "players", strings.Join(names, e.T("vs.sep")),
				"plies", gameword.Plies(e.P, len(m.GetPlies())), "count", int(m.GetSpectators())))
			cur = &matchv1.Match{View: m.GetView(), Seats: m.GetSeats(), Plies: m.GetPlies()}
			board()
			if m.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
				fmt.Fprintln(out, e.T("outcome.line", "outcome", gameword.Outcome(e.P, engine.Game(gameword.Lower(m.GetGame())), m.GetOutcome())))
				return nil
			}
		case r.GetEvent().GetPlyPlayed() != nil:
			pp := r.GetEvent().GetPlyPlayed()
			fmt.Fprintln(out, "\n"+e.T("watch.ply", "n", int(pp.GetPly().GetNumber()), "ply", pp.GetPly().GetNotation()))
			if cur != nil {
				cur.View, cur.Plies = pp.GetView(), append(cur.Plies, pp.GetPly())
				board()
			}
		case r.GetEvent().GetGameEnded() != nil:
			ge := r.GetEvent().GetGameEnded()
			fmt.Fprintln(out, e.T("outcome.line", "outcome", gameword.Outcome(e.P, engine.Game(gameword.Lower(ge.GetView().GetGame())), ge.GetOutcome())))
			return nil
		}
	}
}
