// Package review is `tabuleiro review`: the expert's review of a finished
// game, by its match id (lobby ReviewGame) or from a record file (the bot
// service's ReviewGame with the service credential), with a progress bar
// while it runs, then every ply's mark, the better ply and its line, each
// player's accuracy and the critical moment.
package review

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/cmd/tabuleiro/internal/session"
	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/pkg/engine/games"
	botv1 "tabuleiro.dev/pkg/gen/tabuleiro/bot/v1"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
)

// matchID is what a match id may look like, as opposed to a file's path.
var matchID = regexp.MustCompile(`^[A-Za-z0-9_-]{8,64}$`)

// New is the review command.
func New(e *cli.Env) *cobra.Command {
	var f session.Flags
	var game, variant string
	c := &cobra.Command{
		Use:   "review [--game G] MATCH|FILE",
		Short: e.T("cmd.review.short"),
		Long:  e.T("cmd.review.long"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			raw, err := os.ReadFile(args[0])
			if errors.Is(err, os.ErrNotExist) && matchID.MatchString(args[0]) {
				return reviewMatch(cmd.Context(), &f, e, args[0])
			}
			if errors.Is(err, os.ErrNotExist) {
				// Neither a file nor (as written) a match id.
				return &cli.ExitError{Code: 2, Err: e.Errorf("error.review_missing", "arg", strconv.Quote(args[0]))}
			}
			if err != nil {
				return &cli.ExitError{Code: 2, Err: err}
			}
			return reviewFile(cmd.Context(), &f, e, string(raw), game, variant)
		},
	}
	f.Register(e, c)
	c.Flags().StringVar(&game, "game", "", e.T("flag.replay.game"))
	c.Flags().StringVar(&variant, "variant", "", e.T("flag.play.variant"))
	return c
}

func reviewMatch(ctx context.Context, f *session.Flags, e *cli.Env, id string) error {
	return f.WithIdentity(ctx, e, func(cn *session.Conn, me client.Player) error {
		st, err := cn.C.Lobby.ReviewGame(me.Context(ctx), &lobbyv1.ReviewGameRequest{GameId: id})
		if err != nil {
			return refused(e, id, err)
		}
		r, err := receive(e, func() (*gamev1.ReviewProgress, *gamev1.GameReview, error) {
			m, err := st.Recv()
			return m.GetProgress(), m.GetReview(), err
		})
		if err != nil {
			return refused(e, id, err)
		}
		write(e, r)
		return nil
	})
}

func refused(e *cli.Env, id string, err error) error {
	if status.Code(err) == codes.NotFound {
		return &cli.ExitError{Code: 1, Err: e.Errorf("error.review_unknown", "match", id)}
	}
	return &cli.ExitError{Code: 1, Err: e.Errorf("error.review", "match", id, "error", status.Convert(err).Message())}
}

// reviewFile reviews a record file on the bot service (the one-process
// server's own, or --server's with TABULEIRO_TOKEN_KEY).
func reviewFile(ctx context.Context, f *session.Flags, e *cli.Env, raw, game, variant string) error {
	rec, err := engine.ParseRecord(raw)
	if err != nil {
		return &cli.ExitError{Code: 1, Err: fmt.Errorf("record: %w", err)}
	}
	g := engine.Game(game)
	if h, ok := rec.Header("game"); ok && game == "" {
		if fs := strings.Fields(h); len(fs) > 0 {
			g = engine.Game(strings.ToLower(fs[0]))
		}
	}
	if g == "" {
		g = engine.Quoridor
	}
	if variant, err = gameword.Variant(e.P, g, variant); err != nil {
		return &cli.ExitError{Code: 2, Err: err}
	}
	req := &botv1.ReviewGameRequest{Game: gameword.Proto(g), Variant: variant}
	var pos engine.Position
	if g == engine.Banqi {
		layout, _ := rec.Header("layout")
		if pos, err = games.New(g, variant, layout); err != nil {
			return &cli.ExitError{Code: 2, Err: fmt.Errorf("%s: %w", e.T("review.needs_layout"), err)}
		}
	}
	for i, n := range rec.Plies {
		p := &gamev1.Ply{Number: int32(i + 1), Notation: n}
		if bp, ok := pos.(banqi.Position); ok {
			m, err := banqi.ParseMove(n)
			if err != nil {
				return &cli.ExitError{Code: 1, Err: fmt.Errorf("ply %d %q: %w", i+1, n, err)}
			}
			if m.Kind() == banqi.KindReveal {
				p.Revealed = gamev1.BanqiPiece(strings.IndexByte("KABRNCPkabrncp", bp.PieceAt(m.From()).Letter()) + 1)
			}
			if pos, err = bp.PlayMove(m); err != nil {
				return &cli.ExitError{Code: 1, Err: fmt.Errorf("ply %d %q: %w", i+1, n, err)}
			}
		}
		req.Plies = append(req.Plies, p)
	}
	cn, err := f.Connect(ctx, e)
	if err != nil {
		return err
	}
	defer func() { _ = cn.Stop() }()
	creds, err := cn.ServiceCredentials(e)
	if err != nil {
		return err
	}
	st, err := cn.C.Bot().ReviewGame(ctx, req, grpc.PerRPCCredentials(creds))
	if err != nil {
		return &cli.ExitError{Code: 1, Err: e.Errorf("error.review", "match", "-", "error", status.Convert(err).Message())}
	}
	r, err := receive(e, func() (*gamev1.ReviewProgress, *gamev1.GameReview, error) {
		m, err := st.Recv()
		return m.GetProgress(), m.GetReview(), err
	})
	if err != nil {
		return &cli.ExitError{Code: 1, Err: e.Errorf("error.review", "match", "-", "error", status.Convert(err).Message())}
	}
	write(e, r)
	return nil
}

// receive reads a review's stream, drawing its progress bar on standard
// error, until the review.
func receive(e *cli.Env, recv func() (*gamev1.ReviewProgress, *gamev1.GameReview, error)) (*gamev1.GameReview, error) {
	drawn := false
	defer func() {
		if drawn {
			fmt.Fprintln(e.Stderr)
		}
	}()
	for {
		p, r, err := recv()
		if errors.Is(err, io.EOF) {
			return nil, errors.New(e.T("review.no_result"))
		}
		if err != nil {
			return nil, err
		}
		if r != nil {
			return r, nil
		}
		if p != nil && p.GetTotal() > 0 {
			const width = 30
			done := int(p.GetDone()) * width / int(p.GetTotal())
			fmt.Fprintf(e.Stderr, "\r%s [%s%s] %d/%d", e.T("review.progress"), strings.Repeat("#", done), strings.Repeat(".", width-done), p.GetDone(), p.GetTotal())
			drawn = true
		}
	}
}

var markKeys = map[gamev1.ReviewMark]string{
	gamev1.ReviewMark_REVIEW_MARK_INACCURACY: "review.inaccuracy",
	gamev1.ReviewMark_REVIEW_MARK_MISTAKE:    "review.mistake",
	gamev1.ReviewMark_REVIEW_MARK_BLUNDER:    "review.blunder",
}

var markSigns = map[gamev1.ReviewMark]string{
	gamev1.ReviewMark_REVIEW_MARK_INACCURACY: "?!",
	gamev1.ReviewMark_REVIEW_MARK_MISTAKE:    "?",
	gamev1.ReviewMark_REVIEW_MARK_BLUNDER:    "??",
}

// write prints the review: a line a ply (number, seat, ply played with its
// sign, the first seat's win chance after it, and for a marked ply the mark
// and the better ply with its line), then each seat's summary and the
// critical moment.
func write(e *cli.Env, r *gamev1.GameReview) {
	g := engine.Game(gameword.Lower(r.GetGame()))
	for _, p := range r.GetPlies() {
		line := fmt.Sprintf("%3d. %-7s %-12s %5s%%", p.GetNumber(), gameword.Seat(e.P, g, p.GetSeat()), p.GetPlayed()+markSigns[p.GetMark()], text.Decimal(e.P, p.GetAfter(), 1))
		if k, ok := markKeys[p.GetMark()]; ok {
			// The mark and the better line under each other, past the
			// columns, rather than cut at the terminal's edge mid-ply.
			mark := e.T(k, "drop", fmt.Sprintf("%.0f", p.GetDrop())) + "; " + e.T("review.better", "ply", p.GetBest(), "line", strings.Join(p.GetLine(), " "))
			fmt.Fprint(e.Stdout, termtext.Columns([][2]string{{line, mark}}, 0, termtext.Width(e.Stdout)))
			continue
		}
		fmt.Fprintln(e.Stdout, strings.TrimRight(line, " "))
	}
	for _, s := range r.GetSeats() {
		fmt.Fprintln(e.Stdout, seatSummary(e.P, g, s))
	}
	if c := r.GetCriticalPly(); c > 0 {
		fmt.Fprintln(e.Stdout, e.T("review.critical", "ply", int(c)))
	}
	fmt.Fprintln(e.Stdout, engineLine(e.P, r))
}

// seatSummary is a seat's line under the review: its accuracy and how
// many plies of each mark, each counted in words ("1 inaccuracy", "no
// mistakes": a zero is said, as Portuguese's plural rule would write "0
// erro").
func seatSummary(p *text.Printer, g engine.Game, s *gamev1.SeatReview) string {
	count := func(key, none string, n int32) string {
		if n == 0 {
			return text.T(p, none)
		}
		return text.T(p, key, "count", int(n))
	}
	return text.T(p, "review.summary", "seat", gameword.Seat(p, g, s.GetSeat()), "accuracy", fmt.Sprintf("%.0f", s.GetAccuracy()),
		"inaccuracies", count("review.inaccuracies", "review.inaccuracies.none", s.GetInaccuracies()),
		"mistakes", count("review.mistakes", "review.mistakes.none", s.GetMistakes()),
		"blunders", count("review.blunders", "review.blunders.none", s.GetBlunders()))
}

// engineLine says which bot reviewed the game: the expert, its version
// (the bot service's "expert-2026-12-06": the date is the version) and
// its search's size.
func engineLine(p *text.Printer, r *gamev1.GameReview) string {
	return text.T(p, "review.engine", "version", strings.TrimPrefix(r.GetEngineVersion(), "expert-"), "nodes", int(r.GetNodes()))
}
