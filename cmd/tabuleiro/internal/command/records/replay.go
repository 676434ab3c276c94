package records

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/cmd/tabuleiro/internal/autoplay"
	"tabuleiro.dev/cmd/tabuleiro/internal/boardtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/cmd/tabuleiro/internal/session"
	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

func NewReplay(e *cli.Env) *cobra.Command {
	var f session.Flags
	var game, variant string
	var step, flip bool
	c := &cobra.Command{
		Use:   "replay [--game G] [--step] [--flip] FILE|MATCH",
		Short: e.T("cmd.replay.short"),
		Long:  e.T("cmd.replay.long"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var raw []byte
			var err error
			if args[0] == "-" {
				raw, err = io.ReadAll(e.Stdin)
			} else {
				raw, err = os.ReadFile(args[0])
			}
			if errors.Is(err, os.ErrNotExist) && matchID.MatchString(args[0]) {
				// Not a file: a match id, as history prints them.
				return showGame(&f, cmd.Context(), e, args[0], step, flip)
			}
			if err != nil {
				var pe *fs.PathError
				switch {
				case errors.Is(err, os.ErrNotExist):
					// Neither a file nor (as written) a match id.
					err = e.Errorf("error.replay_missing", "arg", clipArg(args[0]))
				case errors.As(err, &pe):
					// The path as given, cut if long (the whole of a mistyped
					// argument helps nobody), and where match ids come from.
					err = e.Errorf("error.replay_path", "arg", clipArg(args[0]), "error", pe.Err)
				}
				return &cli.ExitError{Code: 2, Err: err}
			}
			rec, err := engine.ParseRecord(string(raw))
			if err != nil {
				return &cli.ExitError{Code: 1, Err: fmt.Errorf("record: %w", err)}
			}
			g, err := recordGame(e.P, game, rec)
			if err != nil {
				return &cli.ExitError{Code: 2, Err: err}
			}
			if variant, err = gameword.Variant(e.P, g, variant); err != nil {
				return &cli.ExitError{Code: 2, Err: err}
			}
			return replayRecord(&f, cmd.Context(), e, g, variant, rec, step, flip)
		},
	}
	f.Register(e, c)
	c.Flags().BoolVar(&step, "step", false, e.T("flag.replay.step"))
	c.Flags().BoolVar(&flip, "flip", false, e.T("flag.replay.flip"))
	c.Flags().StringVar(&game, "game", "", e.T("flag.replay.game"))
	c.Flags().StringVar(&variant, "variant", "", e.T("flag.play.variant"))
	return c
}

// clipArg quotes a command-line argument for a message: whole if short,
// else its first 40 characters and its length.
func clipArg(arg string) string {
	r := []rune(arg)
	if len(r) <= 60 {
		return strconv.Quote(arg)
	}
	return fmt.Sprintf("%s… (%d characters)", strconv.Quote(string(r[:40])), len(r))
}

// matchID is what a match id may look like (history's ID column: letters
// and digits, a few punctuation marks), as opposed to a file's path.
var matchID = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)

// showGame prints a finished game of the caller's history (lobby
// GetGame): the players, the board at the end (or after every ply with
// step) and the outcome. An id the lobby does not know is exit status 1,
// with where the ids come from.
func showGame(f *session.Flags, ctx context.Context, e *cli.Env, id string, step, flip bool) error {
	return f.WithIdentity(ctx, e, func(cn *session.Conn, me client.Player) error {
		resp, err := cn.C.Lobby.GetGame(me.Context(ctx), &lobbyv1.GetGameRequest{GameId: id})
		if status.Code(err) == codes.NotFound || status.Code(err) == codes.InvalidArgument {
			key, history := "error.replay_unknown", "`tabuleiro history`"
			if f.Server != "" {
				key, history = "error.replay_unknown_on", "`tabuleiro history --server "+f.Server+"`"
			}
			return &cli.ExitError{Code: 1, Err: e.Errorf(key, "match", id, "server", f.Server, "history", history)}
		}
		if err != nil {
			return &cli.ExitError{Code: 1, Err: e.Errorf("error.replay", "match", id, "error", session.ReachErr(e.P, err, cn.C.Target()))}
		}
		rec := resp.GetRecord()
		s := rec.GetSummary()
		g := engine.Game(gameword.Lower(s.GetGame()))
		plies := make([]string, 0, len(rec.GetPlies()))
		for _, p := range rec.GetPlies() {
			plies = append(plies, p.GetNotation())
		}
		final, err := finalPosition(g, s.GetVariant(), rec.GetLayout(), plies)
		if err != nil {
			return &cli.ExitError{Code: 1, Err: err}
		}
		seat := func(st gamev1.Seat) string { return finalSeat(e.P, g, final, st) }
		var names []string
		for _, p := range s.GetParticipants() {
			name := seat(p.GetSeat()) + " " + text.PlayerName(e.P, p)
			if p.GetSeat() == s.GetYourSeat() {
				name += " " + e.T("replay.you")
			}
			names = append(names, name)
		}
		termtext.Fprintln(e.Stdout, e.T("replay.head", "game", text.Game(e.P, s.GetGame()), "variant", text.Variant(e.P, s.GetGame(), s.GetVariant()), "players", strings.Join(names, e.T("vs.sep")),
			"plies", gameword.Plies(e.P, len(plies)), "ended", text.Date(e.P, s.GetEndedAt().AsTime().Local())))
		// From the viewer's seat, as the game was played (the terminal and
		// the web draw the second seat's game turned).
		if s.GetYourSeat() == gamev1.Seat_SEAT_SECOND && g != engine.Banqi {
			flip = !flip
			if flip {
				fmt.Fprintln(e.Stdout, e.T("replay.flipped", "seat", gameword.Seat(e.P, g, gamev1.Seat_SEAT_SECOND)))
			}
		}
		if step {
			if err := stepThrough(e, g, s.GetVariant(), rec.GetLayout(), plies, flip); err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
		} else {
			boardtext.Final(e.Stdout, e.P, final, flip)
		}
		fmt.Fprintln(e.Stdout, e.T("outcome.line", "outcome", finalOutcome(e.P, g, final, s.GetOutcome())))
		return nil
	})
}

// finalSeat names seat st of game g as the game named it at its end: in
// Banqi red or black once a reveal fixed the colours, first or second
// before.
func finalSeat(p *text.Printer, g engine.Game, final engine.Position, st gamev1.Seat) string {
	if b, ok := final.(banqi.Position); ok {
		c := b.Colour(engine.Seat(st))
		return text.Seat(p, gamev1.Game_GAME_BANQI, st, c != banqi.NoColour, c == banqi.Red)
	}
	return gameword.Seat(p, g, st)
}

// finalOutcome says how a game ended, its winner named as finalSeat does.
func finalOutcome(p *text.Printer, g engine.Game, final engine.Position, o *gamev1.Outcome) string {
	if o.GetResult() == gamev1.Result_RESULT_ONGOING {
		return text.T(p, "outcome.ongoing")
	}
	return text.Lower(text.Outcome(p, o, finalSeat(p, g, final, o.GetWinner()), 0))
}

// recordGame is the game to replay rec as: --game (flag) when given, which
// must agree with the record's "# game:" header when it has one (its first
// word), else the header's, else Quoridor.
func recordGame(p *text.Printer, flag string, rec engine.Record) (engine.Game, error) {
	var header string
	if h, ok := rec.Header("game"); ok {
		if f := strings.Fields(h); len(f) > 0 {
			header = strings.ToLower(f[0])
		}
	}
	g := cmp.Or(flag, header, string(engine.Quoridor))
	if !slices.Contains(games.List(), engine.Game(g)) {
		return "", errors.New(text.T(p, "error.unknown_game", "game", g, "choice", gameword.Choice(p)))
	}
	if header != "" && flag != "" && header != flag {
		return "", errors.New(text.T(p, "error.record_game", "header", header, "flag", flag))
	}
	return engine.Game(g), nil
}

func replayRecord(f *session.Flags, ctx context.Context, e *cli.Env, g engine.Game, variant string, rec engine.Record, step, flip bool) error {
	cn, err := f.Connect(ctx, e)
	if err != nil {
		return err
	}
	defer func() { _ = cn.Stop() }()
	creds, err := cn.ServiceCredentials(e)
	if err != nil {
		return err
	}
	var seats [2]client.Player
	for i, name := range []string{"Replay first", "Replay second"} {
		if seats[i], err = cn.C.SignIn(ctx, name); err != nil {
			return &cli.ExitError{Code: 1, Err: err}
		}
	}
	layout, _ := rec.Header("layout")
	spec := func(p client.Player) *matchv1.SeatSpec {
		return &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: p.ID, DisplayName: p.Name}}}
	}
	created, err := cn.C.Match.CreateMatch(ctx, &matchv1.CreateMatchRequest{
		RequestId: "replay-" + rand.Text(), Game: gameword.Proto(g), Variant: variant,
		First: spec(seats[0]), Second: spec(seats[1]), Layout: layout,
	}, grpc.PerRPCCredentials(creds))
	if err != nil {
		return &cli.ExitError{Code: 1, Err: e.Errorf("error.replay_create", "error", err)}
	}
	id := created.GetMatchId()
	res, err := replaySeats(ctx, cn.C, id, seats, rec.Plies)
	if err != nil {
		return &cli.ExitError{Code: 1, Err: err}
	}
	if step {
		if err := stepThrough(e, g, variant, layout, rec.Plies[:res.Plies], flip); err != nil {
			return &cli.ExitError{Code: 1, Err: err}
		}
	}
	fmt.Fprintln(e.Stdout, e.T("replay.played", "match", id, "n", int(res.Plies), "count", len(rec.Plies)))
	if res.Final != nil && !step {
		if view, err := games.DecodeView(g, res.Final.GetEncoding()); err == nil {
			boardtext.Write(e.Stdout, e.P, boardtext.Of(e.P, view, flip))
		}
	}
	fmt.Fprintln(e.Stdout, e.T("outcome.line", "outcome", gameword.Outcome(e.P, g, res.Outcome)))
	if int(res.Plies) < len(rec.Plies) {
		return &cli.ExitError{Code: 1, Err: e.Errorf("error.replay_ended", "n", int(res.Plies), "count", len(rec.Plies))}
	}
	return nil
}

// replaySeats plays both seats of a replay match from the record. When the
// record runs out before the game ends, the seat to move returns at once
// and the other is stopped.
func replaySeats(ctx context.Context, c *client.Client, id string, seats [2]client.Player, plies []string) (autoplay.Result, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type answer struct {
		res autoplay.Result
		err error
	}
	answers := make(chan answer, 2)
	var wg sync.WaitGroup
	for _, p := range seats {
		wg.Go(func() {
			res, err := autoplay.Seat(ctx, c, p, id, autoplay.Record(plies))
			answers <- answer{res, err}
		})
	}
	first := <-answers
	if first.err != nil {
		return first.res, first.err
	}
	if first.res.Outcome.GetResult() == gamev1.Result_RESULT_ONGOING {
		cancel() // a refused ply, or the record ended: the other seat would wait for a ply that never comes
	}
	wg.Wait()
	second := <-answers
	stopped := ctx.Err() != nil // errors after our own cancel say nothing
	for _, a := range []answer{first, second} {
		if a.err != nil && !stopped {
			return a.res, a.err
		}
	}
	if first.err != nil {
		return second.res, second.err
	}
	return first.res, nil
}
