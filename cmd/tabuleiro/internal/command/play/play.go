// Package play is `tabuleiro play`: a game in the terminal against a bot,
// a friend (room, queue) or a second player at this keyboard, on a server
// or on the one-process mode started in this process; --auto plays random
// games.
package play

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/autoplay"
	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/cmd/tabuleiro/internal/session"
	"tabuleiro.dev/cmd/tabuleiro/internal/termtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/cmd/tabuleiro/internal/tui"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
)

type playFlags struct {
	session.Flags
	game     string
	variant  string
	vs       string
	room     string
	password string
	queue    bool
	rated    bool
	clock    string
	name     string
	auto     bool
	resume   bool
	explicit bool // --game, --vs, --room or --queue was given
	games    int
	seed     uint64
}

func New(e *cli.Env) *cobra.Command {
	var f playFlags
	c := &cobra.Command{
		Use:   "play",
		Short: e.T("cmd.play.short"),
		Long:  e.T("cmd.play.long"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range []string{"game", "vs", "room", "queue"} {
				f.explicit = f.explicit || cmd.Flags().Changed(name)
			}
			return f.run(cmd.Context(), e)
		},
	}
	f.Flags.Register(e, c)
	c.Flags().StringVar(&f.game, "game", "quoridor", e.T("flag.play.game"))
	c.Flags().StringVar(&f.variant, "variant", "", e.T("flag.play.variant"))
	c.Flags().StringVar(&f.vs, "vs", "bot:easy", e.T("flag.play.vs"))
	c.Flags().StringVar(&f.room, "room", "", e.T("flag.play.room"))
	c.Flags().StringVar(&f.password, "password", "", e.T("flag.play.password"))
	c.Flags().BoolVar(&f.queue, "queue", false, e.T("flag.play.queue"))
	c.Flags().BoolVar(&f.rated, "rated", false, e.T("flag.play.rated"))
	c.Flags().StringVar(&f.clock, "clock", "", e.T("flag.play.clock"))
	c.Flags().StringVar(&f.name, "name", "", e.T("flag.play.name"))
	c.Flags().BoolVar(&f.resume, "resume", false, e.T("flag.play.resume"))
	c.Flags().BoolVar(&f.auto, "auto", false, e.T("flag.play.auto"))
	c.Flags().IntVar(&f.games, "games", 1, e.T("flag.play.games"))
	c.Flags().Uint64Var(&f.seed, "seed", 1, e.T("flag.play.seed"))
	c.Flags().DurationVar(&f.Keep, "keep", session.DefaultKeep, e.T("flag.play.keep"))
	return c
}

// opponent is what --vs, --room and --queue asked for.
type opponent struct {
	level  gamev1.BotLevel // a bot
	local  bool
	room   string
	queue  bool
	rated  bool // a rated game from the queue
	render string
}

func (f *playFlags) opponent(e *cli.Env) (opponent, error) {
	n := 0
	for _, set := range []bool{f.room != "", f.queue} {
		if set {
			n++
		}
	}
	if n > 1 {
		return opponent{}, e.Errorf("error.room_and_queue")
	}
	if f.rated && !f.queue {
		return opponent{}, e.Errorf("error.rated_without_queue")
	}
	switch {
	case f.room != "":
		return opponent{room: f.room, render: e.T("title.room", "room", f.room)}, nil
	case f.queue:
		return opponent{queue: true, rated: f.rated, render: e.T("title.paired")}, nil
	case f.vs == "local":
		return opponent{local: true, render: e.T("title.local")}, nil
	}
	lvl, ok := strings.CutPrefix(f.vs, "bot:")
	if !ok {
		return opponent{}, e.Errorf("error.vs", "vs", f.vs)
	}
	v, ok := gamev1.BotLevel_value["BOT_LEVEL_"+strings.ToUpper(lvl)]
	if !ok || v == 0 {
		return opponent{}, e.Errorf("error.vs_level", "vs", f.vs)
	}
	return opponent{level: gamev1.BotLevel(v), render: botTitle(e.P, gamev1.BotLevel(v), nil)}, nil
}

// parseClock reads --clock: "5m+3s" (base+increment), "5m", or "none".
func parseClock(e *cli.Env, s string) (*gamev1.TimeControl, error) {
	if s == "" || s == "none" {
		return nil, nil
	}
	base, inc, _ := strings.Cut(s, "+")
	b, err := time.ParseDuration(base)
	if err != nil {
		return nil, e.Errorf("error.clock", "clock", strconv.Quote(s), "usage", e.T("flag.play.clock"))
	}
	var i time.Duration
	if inc != "" {
		if i, err = time.ParseDuration(inc); err != nil {
			return nil, e.Errorf("error.clock", "clock", strconv.Quote(s), "usage", e.T("flag.play.clock"))
		}
	}
	return &gamev1.TimeControl{BaseMs: b.Milliseconds(), IncrementMs: i.Milliseconds()}, nil
}

func (f *playFlags) run(ctx context.Context, e *cli.Env) error {
	opp, err := f.opponent(e)
	if err != nil {
		return &cli.ExitError{Code: 2, Err: err}
	}
	tc, err := parseClock(e, f.clock)
	if err != nil {
		return &cli.ExitError{Code: 2, Err: err}
	}
	// A new room's password: the lobby takes 4 to 64 characters and says
	// only that the request is invalid.
	if n := utf8.RuneCountInString(strings.TrimSpace(f.password)); f.room == "new" && f.password != "" && (n < 4 || n > 64) {
		return &cli.ExitError{Code: 2, Err: e.Errorf("error.room_password_length")}
	}
	gameList := []engine.Game{engine.Game(f.game)}
	if f.game != "all" && !slices.Contains(games.List(), engine.Game(f.game)) {
		return &cli.ExitError{Code: 2, Err: e.Errorf("error.unknown_game", "game", f.game, "choice", gameword.Choice(e.P))}
	}
	if f.game == "all" {
		if !f.auto {
			return &cli.ExitError{Code: 2, Err: e.Errorf("error.game_all")}
		}
		gameList = games.List()
	}
	for _, g := range gameList {
		if _, err := gameword.Variant(e.P, g, f.variant); err != nil && (f.game != "all" || f.variant == "") {
			return &cli.ExitError{Code: 2, Err: err}
		}
	}
	if !f.auto {
		if err := needTerminal(e); err != nil {
			return &cli.ExitError{Code: 2, Err: err}
		}
	} else if f.DataDir == "" {
		// Random games are no part of the player's record: they go to a
		// directory of their own unless --data-dir names one.
		tmp, err := os.MkdirTemp("", "tabuleiro-auto-")
		if err != nil {
			return &cli.ExitError{Code: 1, Err: err}
		}
		defer func() { _ = os.RemoveAll(tmp) }()
		f.DataDir = tmp
	}
	cn, err := f.Connect(ctx, e)
	if err != nil {
		return err
	}
	defer func() { _ = cn.Stop() }()
	// Each server keeps its own players: a first game on a server makes a
	// new identity there, under the name already used here.
	name := cmp.Or(f.name, cn.KnownName(), session.DefaultName(e))
	me, err := cn.Identity(ctx, name, 0)
	if err != nil {
		if bad := badName(e.P, f.name, err); bad != nil {
			return bad
		}
		return &cli.ExitError{Code: 1, Err: session.ReachErr(e.P, err, cn.C.Target())}
	}
	if f.name != "" && me.Username != "" {
		// An account is shown by its username: --name is a guest's.
		fmt.Fprintln(e.Stderr, e.T("name.account", "username", me.Username))
	} else if f.name != "" && me.Name != f.name {
		// --name on a kept identity renames it (same player: history and
		// ratings stay).
		if me, err = cn.Rename(ctx, me, f.name); err != nil {
			if bad := badName(e.P, f.name, err); bad != nil {
				return bad
			}
			return &cli.ExitError{Code: 2, Err: err}
		}
	}
	var second client.Player
	if opp.local {
		if second, err = cn.Identity(ctx, me.Name, 1); err != nil {
			return &cli.ExitError{Code: 1, Err: err}
		}
	}
	t := &tables{p: e.P, c: cn.C, me: me, second: second, opp: opp, tc: tc, password: f.password, out: e.Stderr, addr: cn.C.Target(), local: cn.Local != nil,
		dataDir: f.DataDir, self: e.Self}
	// A game at one keyboard resumes with both seats whatever --vs says.
	if t.secondID = cn.KnownExtra(1); !opp.local && t.secondID != "" {
		t.loadSecond = func() (client.Player, error) { return cn.Identity(ctx, me.Name, 1) }
	}
	if f.auto {
		return f.runAuto(ctx, e, t, gameList)
	}
	g := gameList[0]
	t.game = gameword.Proto(g)
	if t.variant, err = gameword.Variant(e.P, g, f.variant); err != nil {
		return &cli.ExitError{Code: 2, Err: err}
	}
	return runTUI(ctx, e, t, f.explicit && !f.resume, f.resume)
}

// needTerminal refuses interactive play when standard input or output is
// not a terminal (`play | tee log`): the screen would be garbled.
func needTerminal(e *cli.Env) error {
	for _, s := range []struct {
		name string
		f    any
	}{{"error.stdin_not_terminal", e.Stdin}, {"error.stdout_not_terminal", e.Stdout}} {
		if f, ok := s.f.(*os.File); !ok || !term.IsTerminal(f.Fd()) {
			return e.Errorf(s.name)
		}
	}
	return nil
}

// runTUI plays in the terminal. Unfinished games are offered first, unless
// the command line asked for a particular game (startNew): then they are
// only mentioned. With resumeOnly (--resume) and none to offer it says so
// and starts nothing: a game left past its reconnection window has ended.
func runTUI(ctx context.Context, e *cli.Env, t *tables, startNew, resumeOnly bool) error {
	active, err := t.c.Lobby.ListActiveMatches(t.me.Context(ctx), &lobbyv1.ListActiveMatchesRequest{})
	if err != nil {
		return &cli.ExitError{Code: 1, Err: t.errorf("error.list_unfinished", "error", err)}
	}
	unfinished := t.unfinished(ctx, active.GetMatches())
	if resumeOnly && len(unfinished) == 0 {
		key, history := "resume.none_here", "tabuleiro history"
		if !t.local {
			key, history = "resume.none_on", "tabuleiro history --server "+session.ShellQuote(t.addr)
		}
		if t.dataDir != "" {
			history += " --data-dir " + session.ShellQuote(t.dataDir)
		}
		fmt.Fprintln(e.Stdout, t.t(key, "server", t.addr, "history", history, "command", strings.Replace(t.resumeCommand(), " play --resume", " play", 1)))
		return nil
	}
	// With flags naming a game, the unfinished games that are that game
	// are offered; the others are mentioned.
	var (
		reminder string
		others   int // the unfinished games the reminder counts
	)
	if startNew && len(unfinished) > 0 {
		var same, other []*lobbyv1.MatchSummary
		for _, m := range unfinished {
			if t.compatible(m) {
				same = append(same, m)
			} else {
				other = append(other, m)
			}
		}
		if others = len(other); others > 0 {
			reminder = t.unfinishedLine(others, len(same) > 0)
		}
		unfinished = same
	}
	deps := tui.Deps{
		Active:   unfinished,
		Reminder: reminder,
		Start: func(round int) (*tui.Table, error) {
			id, seats, err := t.matchFor(ctx, round)
			if err != nil {
				return nil, err
			}
			return t.table(ctx, id, seats, "")
		},
		Resume:     func(id string) (*tui.Table, error) { return t.resume(ctx, active.GetMatches(), id) },
		ResumeHint: t.resumeHint(),
		Online:     !t.local,
		Printer:    e.P,
	}
	if t.opp.room != "" {
		deps.Rematch = t.rematcher(ctx)
	}
	in, _ := e.Stdin.(*os.File)
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithOutput(e.Stdout), tea.WithAltScreen()}
	if in != nil {
		if term.IsTerminal(in.Fd()) {
			dropTypeahead(in)
		}
		opts = append(opts, tea.WithInput(in))
	} else {
		opts = append(opts, tea.WithInput(e.Stdin))
	}
	p := tea.NewProgram(tui.New(deps), opts...)
	t.notify = func(s string) { p.Send(tui.Notice(s)) }
	final, err := p.Run()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return &cli.ExitError{Code: 1, Err: err}
	}
	if m, ok := final.(tui.Model); ok {
		if reminder != "" && m.Result() == "" && m.Unfinished() != "" && deps.ResumeHint != "" {
			// After the line on the game left unfinished, the reminder
			// counts the others.
			reminder = t.unfinishedLine(others, true)
		}
		afterTUI(e, m, deps.ResumeHint, reminder)
		if err := m.Err(); err != nil {
			return &cli.ExitError{Code: 1, Err: err}
		}
	}
	return nil
}

// afterTUI prints, once the game screen is gone (the alternate screen
// takes what was on it), what the player should keep: the result, or how
// to come back to a game left unfinished; then the reminder of other
// unfinished games.
func afterTUI(e *cli.Env, m tui.Model, resumeHint, reminder string) {
	// Wrapped at words, so that the terminal never cuts the command to
	// type in two.
	if r := m.Result(); r != "" {
		termtext.Fprintln(e.Stdout, r)
	} else if id := m.Unfinished(); id != "" && resumeHint != "" {
		termtext.Fprintln(e.Stdout, e.T("after.unfinished", "match", id, "command", resumeHint))
	}
	if reminder != "" {
		termtext.Fprintln(e.Stdout, reminder)
	}
}

// runAuto plays each game --games times with random plies and prints one
// line per game.
func (f *playFlags) runAuto(ctx context.Context, e *cli.Env, t *tables, gameList []engine.Game) error {
	var failed int
	round := 0
	for _, g := range gameList {
		variant, err := gameword.Variant(e.P, g, f.variant)
		if err != nil || f.game == "all" {
			variant, _ = gameword.Variant(e.P, g, "")
		}
		t.game, t.variant = gameword.Proto(g), variant
		for i := range f.games {
			seed := f.seed + uint64(round)
			id, seats, err := t.matchFor(ctx, round)
			round++
			if err != nil {
				return &cli.ExitError{Code: 1, Err: err}
			}
			res, err := autoSeats(ctx, t.c, id, seats, seed)
			if err != nil {
				failed++
				fmt.Fprintln(e.Stderr, e.T("auto.failed", "game", string(g), "variant", variant, "n", i+1, "match", id, "error", text.Err(e.P, err)))
				continue
			}
			you := ""
			if len(seats) == 1 {
				for seat := range seats {
					you = " " + map[gamev1.Seat]string{gamev1.Seat_SEAT_FIRST: e.T("auto.you_first"), gamev1.Seat_SEAT_SECOND: e.T("auto.you_second")}[seat]
				}
			}
			fmt.Fprintln(e.Stdout, e.T("auto.line", "game", text.Game(e.P, gameword.Proto(g)), "variant", text.Variant(e.P, gameword.Proto(g), variant), "opponent", t.opp.render+you,
				"outcome", gameword.Outcome(e.P, g, res.Outcome), "plies", e.T("plies", "count", res.Plies)))
		}
	}
	if failed > 0 {
		return &cli.ExitError{Code: 1, Err: e.Errorf("auto.games_failed", "count", failed)}
	}
	return nil
}

// autoSeats plays every seat in seats with random plies until the match
// ends.
func autoSeats(ctx context.Context, c *client.Client, id string, seats map[gamev1.Seat]client.Player, seed uint64) (autoplay.Result, error) {
	var (
		mu    sync.Mutex
		first autoplay.Result
		errs  []error
		wg    sync.WaitGroup
	)
	for seat, p := range seats {
		wg.Go(func() {
			res, err := autoplay.Seat(ctx, c, p, id, autoplay.Random(seed+uint64(seat)))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			first = res
		})
	}
	wg.Wait()
	return first, errors.Join(errs...)
}
