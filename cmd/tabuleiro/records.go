package main

import (
	"bufio"
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/status"

	"tabuleiro.dev/cmd/tabuleiro/internal/autoplay"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/affinity"
	"tabuleiro.dev/pkg/platform/auth"
)

// withIdentity connects (see serverFlags.connect), signs in as the person
// at this terminal and calls do.
func (f *serverFlags) withIdentity(ctx context.Context, e *env, do func(cn *connection, me client.Player) error) error {
	cn, err := f.connect(ctx, e)
	if err != nil {
		return err
	}
	defer func() { _ = cn.stop() }()
	me, err := cn.identity(ctx, cmp.Or(cn.knownName(), defaultName(e)), 0)
	if err != nil {
		return &exitError{code: 1, err: reachErr(e.p, err, cn.c.Target())}
	}
	return do(cn, me)
}

// onlineHint, for history and stats without --server, says on stderr that
// they cover the games played on this computer, and how to see a
// server's: each server keeps its own players and games.
func (f *serverFlags) onlineHint(e *env, cmd string) {
	if f.server != "" {
		return
	}
	fmt.Fprintln(e.stderr, e.t("records.local_hint", "command", cmd))
}

// defaultName is the display name of a new identity: $USER when it is a
// valid name, else "Guest" and four random letters, so that two players
// of one machine are not both called the same.
func defaultName(e *env) string {
	name := strings.TrimSpace(e.getenv("USER"))
	if len([]rune(name)) < 2 || len([]rune(name)) > 24 {
		name = e.t("player.guest", "letters", strings.ToUpper(rand.Text()[:4]))
	}
	return name
}

// dialFailure finds why a connection failed in a gRPC error's text.
var dialFailure = regexp.MustCompile(`(connect: [^"]+|no such host|i/o timeout|context deadline exceeded)`)

// reachErr says in words that the server cannot be reached, instead of
// gRPC's transport error; other errors pass unchanged.
func reachErr(p *text.Printer, err error, addr string) error {
	if status.Code(err) != codes.Unavailable && !strings.Contains(err.Error(), "Error while dialing") {
		return err
	}
	why := text.T(p, "error.unavailable")
	if m := dialFailure.FindString(err.Error()); m != "" {
		why = strings.TrimPrefix(m, "connect: ")
	}
	return errors.New(text.T(p, "error.unreachable", "server", addr, "why", why))
}

func newHistoryCommand(e *env) *cobra.Command {
	var f serverFlags
	var n int32
	c := &cobra.Command{
		Use:   "history",
		Short: e.t("cmd.history.short"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.withIdentity(cmd.Context(), e, func(cn *connection, me client.Player) error {
				resp, err := cn.c.Lobby.ListGames(me.Context(cmd.Context()), &lobbyv1.ListGamesRequest{PageSize: n})
				if err != nil {
					return &exitError{code: 1, err: e.errorf("error.list_games", "error", err)}
				}
				f.onlineHint(e, "history")
				if len(resp.GetGames()) == 0 {
					if f.server != "" {
						// Each server keeps its own players and games.
						fmt.Fprintln(e.stdout, e.t("history.none_on", "server", f.server, "name", me.Name))
						return nil
					}
					fmt.Fprintln(e.stdout, e.t("history.none"))
					return nil
				}
				w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, e.t("history.head"))
				for _, g := range resp.GetGames() {
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n",
						text.Date(e.p, g.GetEndedAt().AsTime().Local()), gameLower(g.GetGame()), g.GetVariant(),
						opponentName(e.p, g), resultFor(e.p, g), e.p.Number(g.GetPlyCount()), g.GetMatchId())
				}
				return w.Flush()
			})
		},
	}
	f.register(e, c)
	c.Flags().Int32Var(&n, "n", 20, e.t("flag.history.n"))
	return c
}

func gameLower(g gamev1.Game) string {
	return strings.ToLower(strings.TrimPrefix(g.String(), "GAME_"))
}

func opponentName(pr *text.Printer, g *lobbyv1.MatchSummary) string {
	for _, p := range g.GetParticipants() {
		if p.GetSeat() != g.GetYourSeat() {
			return text.PlayerName(pr, p)
		}
	}
	return "-"
}

// pliesText is "1 ply" or "N plies".
func pliesText(p *text.Printer, n int) string { return text.T(p, "plies", "count", n) }

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

func newStatsCommand(e *env) *cobra.Command {
	var f serverFlags
	c := &cobra.Command{
		Use:   "stats",
		Short: e.t("cmd.stats.short"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return f.withIdentity(cmd.Context(), e, func(cn *connection, me client.Player) error {
				resp, err := cn.c.Lobby.GetStats(me.Context(cmd.Context()), &lobbyv1.GetStatsRequest{})
				if err != nil {
					return &exitError{code: 1, err: e.errorf("error.stats", "error", err)}
				}
				f.onlineHint(e, "stats")
				fmt.Fprintf(e.stdout, "%s (%s)\n\n", resp.GetDisplayName(), resp.GetPlayerId())
				// One table per section, each printed only when it has
				// rows: an empty one would be a line of padding.
				if len(resp.GetRatings()) == 0 {
					fmt.Fprintln(e.stdout, e.t("stats.no_ratings"))
				} else {
					w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
					fmt.Fprintln(w, e.t("stats.ratings_head"))
					for _, r := range resp.GetRatings() {
						fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", gameLower(r.GetGame()), r.GetVariant(), e.p.Number(int(math.Round(r.GetRating()))),
							e.p.Number(int(math.Round(r.GetDeviation()))), e.p.Number(r.GetGames()))
					}
					if err := w.Flush(); err != nil {
						return err
					}
				}
				fmt.Fprintln(e.stdout)
				if len(resp.GetBotRecords()) == 0 {
					fmt.Fprintln(e.stdout, e.t("stats.no_bots"))
					return nil
				}
				w := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
				fmt.Fprintln(w, e.t("stats.bots_head"))
				for _, r := range resp.GetBotRecords() {
					level := text.Level(e.p, r.GetLevel())
					fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", gameLower(r.GetGame()), level, e.p.Number(r.GetWins()), e.p.Number(r.GetDraws()), e.p.Number(r.GetLosses()))
				}
				return w.Flush()
			})
		},
	}
	f.register(e, c)
	return c
}

func newWatchCommand(e *env) *cobra.Command {
	var f serverFlags
	c := &cobra.Command{
		Use:   "watch MATCH",
		Short: e.t("cmd.watch.short"),
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return &exitError{code: 2, err: e.errorf("error.watch_usage")}
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return f.withIdentity(cmd.Context(), e, func(cn *connection, me client.Player) error {
				return watch(cmd.Context(), e, cn.c, me, args[0])
			})
		},
	}
	f.register(e, c)
	return c
}

// watch prints the spectators' view of a match: the board after the
// snapshot and after each ply, drawn by the engine from the view's
// encoding, then the outcome. A line "q" on in (or Ctrl-C) stops it,
// which is no error.
func watch(ctx context.Context, e *env, c *client.Client, me client.Player, id string) error {
	in, out := e.stdin, e.stdout
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
		fmt.Fprintln(out, e.t("watch.stopped", "match", id))
		return nil
	}
	s, err := c.Match.Watch(affinity.Context(me.Context(ctx), id), &matchv1.WatchRequest{MatchId: id})
	if err != nil {
		if ctx.Err() != nil {
			return stopped()
		}
		return &exitError{code: 1, err: e.errorf("error.watch", "match", id, "error", reachErr(e.p, err, c.Target()))}
	}
	board := func(v *gamev1.GameView) {
		g := engine.Game(gameLower(v.GetGame()))
		if view, err := games.DecodeView(g, v.GetEncoding()); err == nil {
			writeBoard(out, view.Render()) // the outcome follows, once, in words
		}
	}
	for {
		r, err := s.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			if ctx.Err() != nil {
				return stopped()
			}
			return &exitError{code: 1, err: e.errorf("error.watch", "match", id, "error", reachErr(e.p, err, c.Target()))}
		}
		switch {
		case r.GetSnapshot() != nil:
			m := r.GetSnapshot()
			var names []string
			for _, st := range m.GetSeats() {
				names = append(names, text.PlayerName(e.p, st.GetParticipant()))
			}
			fmt.Fprintln(out, e.t("watch.head", "game", gameLower(m.GetGame()), "variant", m.GetVariant(), "players", strings.Join(names, e.t("vs.sep")),
				"plies", pliesText(e.p, len(m.GetPlies())), "count", int(m.GetSpectators())))
			board(m.GetView())
			if m.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
				fmt.Fprintln(out, e.t("outcome.line", "outcome", outcomeText(e.p, engine.Game(gameLower(m.GetGame())), m.GetOutcome())))
				return nil
			}
		case r.GetEvent().GetPlyPlayed() != nil:
			pp := r.GetEvent().GetPlyPlayed()
			fmt.Fprintln(out, "\n"+e.t("watch.ply", "n", int(pp.GetPly().GetNumber()), "ply", pp.GetPly().GetNotation()))
			board(pp.GetView())
		case r.GetEvent().GetGameEnded() != nil:
			ge := r.GetEvent().GetGameEnded()
			fmt.Fprintln(out, e.t("outcome.line", "outcome", outcomeText(e.p, engine.Game(gameLower(ge.GetView().GetGame())), ge.GetOutcome())))
			return nil
		}
	}
}

func newReplayCommand(e *env) *cobra.Command {
	var f serverFlags
	var game, variant string
	var step, flip bool
	c := &cobra.Command{
		Use:   "replay [--game G] [--step] [--flip] FILE|MATCH",
		Short: e.t("cmd.replay.short"),
		Long:  e.t("cmd.replay.long"),
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var raw []byte
			var err error
			if args[0] == "-" {
				raw, err = io.ReadAll(e.stdin)
			} else {
				raw, err = os.ReadFile(args[0])
			}
			if errors.Is(err, os.ErrNotExist) && matchID.MatchString(args[0]) {
				// Not a file: a match id, as history prints them.
				return f.showGame(cmd.Context(), e, args[0], step, flip)
			}
			if err != nil {
				var pe *fs.PathError
				if errors.As(err, &pe) {
					// The path as given, cut if long (the whole of a mistyped
					// argument helps nobody), and where match ids come from.
					err = e.errorf("error.replay_path", "arg", clipArg(args[0]), "error", pe.Err)
				}
				return &exitError{code: 2, err: err}
			}
			rec, err := engine.ParseRecord(string(raw))
			if err != nil {
				return &exitError{code: 1, err: fmt.Errorf("record: %w", err)}
			}
			g, err := recordGame(e.p, game, rec)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if variant, err = variantOf(g, variant); err != nil {
				return &exitError{code: 2, err: err}
			}
			return f.replay(cmd.Context(), e, g, variant, rec, step, flip)
		},
	}
	f.register(e, c)
	c.Flags().BoolVar(&step, "step", false, e.t("flag.replay.step"))
	c.Flags().BoolVar(&flip, "flip", false, e.t("flag.replay.flip"))
	c.Flags().StringVar(&game, "game", "", e.t("flag.replay.game"))
	c.Flags().StringVar(&variant, "variant", "", e.t("flag.play.variant"))
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
func (f *serverFlags) showGame(ctx context.Context, e *env, id string, step, flip bool) error {
	return f.withIdentity(ctx, e, func(cn *connection, me client.Player) error {
		resp, err := cn.c.Lobby.GetGame(me.Context(ctx), &lobbyv1.GetGameRequest{GameId: id})
		if status.Code(err) == codes.NotFound || status.Code(err) == codes.InvalidArgument {
			key, history := "error.replay_unknown", "`tabuleiro history`"
			if f.server != "" {
				key, history = "error.replay_unknown_on", "`tabuleiro history --server "+f.server+"`"
			}
			return &exitError{code: 1, err: e.errorf(key, "match", id, "server", f.server, "history", history)}
		}
		if err != nil {
			return &exitError{code: 1, err: e.errorf("error.replay", "match", id, "error", reachErr(e.p, err, cn.c.Target()))}
		}
		rec := resp.GetRecord()
		s := rec.GetSummary()
		g := engine.Game(gameLower(s.GetGame()))
		var names []string
		for _, p := range s.GetParticipants() {
			name := seatWord(e.p, g, p.GetSeat()) + " " + text.PlayerName(e.p, p)
			if p.GetSeat() == s.GetYourSeat() {
				name += " " + e.t("replay.you")
			}
			names = append(names, name)
		}
		plies := make([]string, 0, len(rec.GetPlies()))
		for _, p := range rec.GetPlies() {
			plies = append(plies, p.GetNotation())
		}
		fmt.Fprintln(e.stdout, e.t("replay.head", "game", string(g), "variant", s.GetVariant(), "players", strings.Join(names, e.t("vs.sep")),
			"plies", pliesText(e.p, len(plies)), "ended", text.Date(e.p, s.GetEndedAt().AsTime().Local())))
		// From the viewer's seat, as the game was played (the terminal and
		// the web draw the second seat's game turned).
		if s.GetYourSeat() == gamev1.Seat_SEAT_SECOND && g != engine.Banqi {
			flip = !flip
			if flip {
				fmt.Fprintln(e.stdout, e.t("replay.flipped", "seat", seatWord(e.p, g, gamev1.Seat_SEAT_SECOND)))
			}
		}
		if step {
			if err := stepThrough(e, g, s.GetVariant(), rec.GetLayout(), plies, flip); err != nil {
				return &exitError{code: 1, err: err}
			}
		} else if err := finalBoard(e.stdout, g, s.GetVariant(), rec.GetLayout(), plies, flip); err != nil {
			return &exitError{code: 1, err: err}
		}
		fmt.Fprintln(e.stdout, e.t("outcome.line", "outcome", outcomeText(e.p, g, s.GetOutcome())))
		return nil
	})
}

// finalBoard prints the board after plies, as the engine plays them from
// the start (the outcome line left out: the caller says it in words).
func finalBoard(out io.Writer, g engine.Game, variant, layout string, plies []string, flip bool) error {
	pos, err := games.New(g, variant, layout)
	if err != nil {
		return err
	}
	for i, tok := range plies {
		ply, err := pos.ParsePly(tok)
		if err == nil {
			pos, err = pos.Play(ply)
		}
		if err != nil {
			return fmt.Errorf("ply %d (%s): %w", i+1, tok, err)
		}
	}
	// The game is over (the outcome follows, once), though a game ended off
	// the board (resignation, time) is one the engine still calls ongoing:
	// no result line of the engine's, nobody to move.
	for line := range strings.Lines(boardText(pos, flip)) {
		switch {
		case resultLine.MatchString(line), strings.HasPrefix(line, "to move:"), line == "ongoing\n":
		case cornersToMove.MatchString(line):
			// The engine's board is drawn in its own (English) words.
			fmt.Fprint(out, cornersToMove.ReplaceAllString(line, cornersOver))
		default:
			fmt.Fprint(out, line)
		}
	}
	return nil
}

// cornersOver replaces the engine's Corners line of the side to move once
// the game is over: the engine's words.
const cornersOver = "game over at move "

// cornersToMove is the start of Corners' line of the side to move ("black
// to move, move 2 (leave home by move 40, last move 80)").
var cornersToMove = regexp.MustCompile(`^(white|black) to move, move `)

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
		return "", errors.New(text.T(p, "error.unknown_game", "game", g, "choice", gameChoice(p)))
	}
	if header != "" && flag != "" && header != flag {
		return "", errors.New(text.T(p, "error.record_game", "header", header, "flag", flag))
	}
	return engine.Game(g), nil
}

func (f *serverFlags) replay(ctx context.Context, e *env, g engine.Game, variant string, rec engine.Record, step, flip bool) error {
	cn, err := f.connect(ctx, e)
	if err != nil {
		return err
	}
	defer func() { _ = cn.stop() }()
	var creds credentials.PerRPCCredentials
	if cn.local != nil {
		creds = cn.local.ServiceCredentials()
	} else {
		key, err := auth.ParseKey(e.getenv("TABULEIRO_TOKEN_KEY"))
		if err != nil {
			return &exitError{code: 2, err: e.errorf("error.replay_token_key", "error", err)}
		}
		iss, err := auth.NewIssuer(key)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		creds = auth.NewServiceCredentials(iss, "tabuleiro", time.Hour)
	}
	var seats [2]client.Player
	for i, name := range []string{"Replay first", "Replay second"} {
		if seats[i], err = cn.c.SignIn(ctx, name); err != nil {
			return &exitError{code: 1, err: err}
		}
	}
	layout, _ := rec.Header("layout")
	spec := func(p client.Player) *matchv1.SeatSpec {
		return &matchv1.SeatSpec{Occupant: &matchv1.SeatSpec_Player{Player: &matchv1.PlayerSeat{PlayerId: p.ID, DisplayName: p.Name}}}
	}
	created, err := cn.c.Match.CreateMatch(ctx, &matchv1.CreateMatchRequest{
		RequestId: "replay-" + rand.Text(), Game: gameProto(g), Variant: variant,
		First: spec(seats[0]), Second: spec(seats[1]), Layout: layout,
	}, grpc.PerRPCCredentials(creds))
	if err != nil {
		return &exitError{code: 1, err: e.errorf("error.replay_create", "error", err)}
	}
	id := created.GetMatchId()
	res, err := replaySeats(ctx, cn.c, id, seats, rec.Plies)
	if err != nil {
		return &exitError{code: 1, err: err}
	}
	if step {
		if err := stepThrough(e, g, variant, layout, rec.Plies[:res.Plies], flip); err != nil {
			return &exitError{code: 1, err: err}
		}
	}
	fmt.Fprintln(e.stdout, e.t("replay.played", "match", id, "n", int(res.Plies), "count", len(rec.Plies)))
	if res.Final != nil && !step {
		if view, err := games.DecodeView(g, res.Final.GetEncoding()); err == nil {
			writeBoard(e.stdout, boardText(view, flip))
		}
	}
	fmt.Fprintln(e.stdout, e.t("outcome.line", "outcome", outcomeText(e.p, g, res.Outcome)))
	if int(res.Plies) < len(rec.Plies) {
		return &exitError{code: 1, err: e.errorf("error.replay_ended", "n", int(res.Plies), "count", len(rec.Plies))}
	}
	return nil
}

// resultLine matches the result line of an engine's board: Banqi's
// "outcome: …", Quoridor's "game over: white wins (goal)", Corners' bare
// "white wins (goal)" or "draw (move-limit)".
var resultLine = regexp.MustCompile(`^(outcome: |game over: |(white|black|first|second) wins \(|draw \()`)

// writeBoard writes a board as the engine renders it, less the result:
// replay says it once, in words, after the board.
func writeBoard(w io.Writer, render string) {
	for line := range strings.Lines(render) {
		if !resultLine.MatchString(line) {
			fmt.Fprint(w, line)
		}
	}
}

// boardText is v's board as the engine draws it, turned half a turn (as
// the second seat sees it) when flip and the game has sides (not Banqi).
func boardText(v engine.View, flip bool) string {
	if t, ok := v.(interface{ RenderFlipped() string }); ok && flip {
		return t.RenderFlipped()
	}
	return v.Render()
}

// stepThrough prints the board at the start and after each of plies, as
// the engine plays them (the service accepted every one), waiting for
// enter between plies when standard input is a terminal; q stops.
func stepThrough(e *env, g engine.Game, variant, layout string, plies []string, flip bool) error {
	pos, err := games.New(g, variant, layout)
	if err != nil {
		return err
	}
	in, _ := e.stdin.(*os.File)
	interactive := in != nil && term.IsTerminal(in.Fd())
	var lines *bufio.Scanner
	if interactive {
		lines = bufio.NewScanner(in)
	}
	show := func(head string, p engine.Position) {
		fmt.Fprintln(e.stdout, head)
		writeBoard(e.stdout, boardText(p, flip))
	}
	show(e.t("replay.start"), pos)
	for i, tok := range plies {
		if interactive {
			fmt.Fprint(e.stdout, e.t("replay.step", "n", i+1, "count", len(plies))+" ")
			if !lines.Scan() || strings.TrimSpace(lines.Text()) == "q" {
				return nil
			}
		}
		ply, err := pos.ParsePly(tok)
		if err == nil {
			pos, err = pos.Play(ply)
		}
		if err != nil {
			return fmt.Errorf("ply %d (%s): %w", i+1, tok, err)
		}
		show(fmt.Sprintf("\nply %d: %s", i+1, tok), pos)
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
