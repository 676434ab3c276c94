package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"tabuleiro.dev/cmd/tabuleiro/internal/autoplay"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/cmd/tabuleiro/internal/tui"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

// serverFlags choose the server: a given address, or the one-process mode
// started in the background of this process.
type serverFlags struct {
	server      string
	dataDir     string
	redisURL    string
	databaseURL string
	// keep, when set, is how long an unfinished game of the local mode
	// waits for its player: the match service's reconnection window and
	// first-ply timeout (`play` only; nobody else plays on its server).
	keep time.Duration
}

// defaultKeep is how long `play` keeps an unfinished local game.
const defaultKeep = 30 * 24 * time.Hour

func (f *serverFlags) register(e *env, c *cobra.Command) {
	c.Flags().StringVar(&f.server, "server", "", e.t("flag.server"))
	c.Flags().StringVar(&f.dataDir, "data-dir", "", e.t("flag.data_dir"))
	c.Flags().StringVar(&f.redisURL, "redis-url", "", e.t("flag.redis_url"))
	c.Flags().StringVar(&f.databaseURL, "database-url", "", e.t("flag.database_url"))
}

func (f *serverFlags) dir(e *env) (string, error) {
	if f.dataDir != "" {
		return f.dataDir, nil
	}
	if d := e.getenv("TABULEIRO_DATA_DIR"); d != "" {
		return d, nil
	}
	return local.DataDir(e.getenv)
}

// connection is a client of a server, and the local server when this
// process runs it.
type connection struct {
	c       *client.Client
	local   *local.Server
	dataDir string
	key     string // the identity key: the server's address, or "local"
	stop    func() error
	p       *text.Printer
}

// connect dials the server, starting the one-process mode first when no
// address is given. Its logs go to server.log in the data directory, so
// that they never mix with a terminal game. stop shuts it down and waits.
func (f *serverFlags) connect(ctx context.Context, e *env) (*connection, error) {
	dir, err := f.dir(e)
	if err != nil {
		return nil, &exitError{code: 2, err: err}
	}
	conn := &connection{dataDir: dir, key: f.server, stop: func() error { return nil }, p: e.p}
	addr := f.server
	if addr == "" {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		logf, err := os.OpenFile(filepath.Join(dir, "server.log"), os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
		if err != nil {
			return nil, err
		}
		sctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
		srv, err := local.Start(sctx, local.Options{
			DataDir: dir, RedisURL: f.redisURL, DatabaseURL: f.databaseURL,
			Logger:          slog.New(slog.NewJSONHandler(logf, nil)),
			ReconnectWindow: f.keep, FirstPlyTimeout: f.keep,
		})
		if err != nil {
			cancel()
			_ = logf.Close()
			if !local.Busy(err) { // that one says what happened and what to do
				err = e.errorf("error.local_start", "error", err)
			}
			return nil, &exitError{code: 1, err: err}
		}
		conn.local, conn.key, addr = srv, "local", srv.Addr()
		conn.stop = func() error {
			cancel()
			err := srv.Wait()
			_ = logf.Close()
			return err
		}
	}
	c, err := client.Dial(addr)
	if err != nil {
		_ = conn.stop()
		return nil, &exitError{code: 1, err: err}
	}
	conn.c = c
	inner := conn.stop
	conn.stop = func() error { _ = c.Close(); return inner() }
	return conn, nil
}

// identity is the person at this terminal on this server (extra > 0 for
// the second player of a local game).
func (cn *connection) identity(ctx context.Context, name string, extra int) (client.Player, error) {
	key := cn.key
	if extra > 0 {
		key = fmt.Sprintf("%s#%d", key, extra+1)
		name = text.T(cn.p, "player.extra", "n", fmt.Sprint(extra+1))
	}
	return cn.c.Identity(ctx, cn.identities(), key, name)
}

// identities is the file that keeps this terminal's identities, one per
// server.
func (cn *connection) identities() string { return filepath.Join(cn.dataDir, "identities.json") }

// knownName is the display name this person already uses here (offline,
// or on another server), so that a new identity on a server carries the
// same name; "" when none is kept.
func (cn *connection) knownName() string {
	return client.KnownName(cn.identities())
}

// rename changes the display name of the person at this terminal.
func (cn *connection) rename(ctx context.Context, p client.Player, name string) (client.Player, error) {
	return cn.c.Rename(ctx, cn.identities(), cn.key, p, name)
}

// knownExtra returns the id of the extra local player (the second player
// of games at one keyboard) if one was ever signed in here, else "".
func (cn *connection) knownExtra(extra int) string {
	return client.KnownIdentity(cn.identities(), fmt.Sprintf("%s#%d", cn.key, extra+1))
}

type playFlags struct {
	serverFlags
	game     string
	variant  string
	vs       string
	room     string
	password string
	queue    bool
	clock    string
	name     string
	auto     bool
	resume   bool
	explicit bool // --game, --vs, --room or --queue was given
	games    int
	seed     uint64
}

func newPlayCommand(e *env) *cobra.Command {
	var f playFlags
	c := &cobra.Command{
		Use:   "play",
		Short: e.t("cmd.play.short"),
		Long:  e.t("cmd.play.long"),
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			for _, name := range []string{"game", "vs", "room", "queue"} {
				f.explicit = f.explicit || cmd.Flags().Changed(name)
			}
			return f.run(cmd.Context(), e)
		},
	}
	f.serverFlags.register(e, c)
	c.Flags().StringVar(&f.game, "game", "quoridor", e.t("flag.play.game"))
	c.Flags().StringVar(&f.variant, "variant", "", e.t("flag.play.variant"))
	c.Flags().StringVar(&f.vs, "vs", "bot:easy", e.t("flag.play.vs"))
	c.Flags().StringVar(&f.room, "room", "", e.t("flag.play.room"))
	c.Flags().StringVar(&f.password, "password", "", e.t("flag.play.password"))
	c.Flags().BoolVar(&f.queue, "queue", false, e.t("flag.play.queue"))
	c.Flags().StringVar(&f.clock, "clock", "", e.t("flag.play.clock"))
	c.Flags().StringVar(&f.name, "name", "", e.t("flag.play.name"))
	c.Flags().BoolVar(&f.resume, "resume", false, e.t("flag.play.resume"))
	c.Flags().BoolVar(&f.auto, "auto", false, e.t("flag.play.auto"))
	c.Flags().IntVar(&f.games, "games", 1, e.t("flag.play.games"))
	c.Flags().Uint64Var(&f.seed, "seed", 1, e.t("flag.play.seed"))
	c.Flags().DurationVar(&f.keep, "keep", defaultKeep, e.t("flag.play.keep"))
	return c
}

// opponent is what --vs, --room and --queue asked for.
type opponent struct {
	level  gamev1.BotLevel // a bot
	local  bool
	room   string
	queue  bool
	render string
}

func (f *playFlags) opponent(e *env) (opponent, error) {
	n := 0
	for _, set := range []bool{f.room != "", f.queue} {
		if set {
			n++
		}
	}
	if n > 1 {
		return opponent{}, e.errorf("error.room_and_queue")
	}
	switch {
	case f.room != "":
		return opponent{room: f.room, render: e.t("title.room", "room", f.room)}, nil
	case f.queue:
		return opponent{queue: true, render: e.t("title.paired")}, nil
	case f.vs == "local":
		return opponent{local: true, render: e.t("title.local")}, nil
	}
	lvl, ok := strings.CutPrefix(f.vs, "bot:")
	if !ok {
		return opponent{}, e.errorf("error.vs", "vs", f.vs)
	}
	v, ok := gamev1.BotLevel_value["BOT_LEVEL_"+strings.ToUpper(lvl)]
	if !ok || v == 0 {
		return opponent{}, e.errorf("error.vs_level", "vs", f.vs)
	}
	return opponent{level: gamev1.BotLevel(v), render: botTitle(e.p, gamev1.BotLevel(v), nil)}, nil
}

func parseClock(s string) (*gamev1.TimeControl, error) {
	if s == "" || s == "none" {
		return nil, nil
	}
	base, inc, _ := strings.Cut(s, "+")
	b, err := time.ParseDuration(base)
	if err != nil {
		return nil, fmt.Errorf("--clock %q: %w", s, err)
	}
	var i time.Duration
	if inc != "" {
		if i, err = time.ParseDuration(inc); err != nil {
			return nil, fmt.Errorf("--clock %q: %w", s, err)
		}
	}
	return &gamev1.TimeControl{BaseMs: b.Milliseconds(), IncrementMs: i.Milliseconds()}, nil
}

func gameProto(g engine.Game) gamev1.Game {
	v := gamev1.Game_value["GAME_"+strings.ToUpper(string(g))]
	return gamev1.Game(v)
}

// variantOf returns the variant id to play: the flag, or the game's first.
func variantOf(g engine.Game, v string) (string, error) {
	if v != "" {
		if _, err := games.Lookup(g, v); err != nil {
			return "", err
		}
		return v, nil
	}
	vs, err := games.Variants(g)
	if err != nil {
		return "", err
	}
	return vs[0].ID, nil
}

func (f *playFlags) run(ctx context.Context, e *env) error {
	opp, err := f.opponent(e)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	tc, err := parseClock(f.clock)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	gameList := []engine.Game{engine.Game(f.game)}
	if f.game != "all" && !slices.Contains(games.List(), engine.Game(f.game)) {
		return &exitError{code: 2, err: e.errorf("error.unknown_game", "game", f.game, "choice", gameChoice(e.p))}
	}
	if f.game == "all" {
		if !f.auto {
			return &exitError{code: 2, err: e.errorf("error.game_all")}
		}
		gameList = games.List()
	}
	for _, g := range gameList {
		if _, err := variantOf(g, f.variant); err != nil && (f.game != "all" || f.variant == "") {
			return &exitError{code: 2, err: fmt.Errorf("--game %s --variant %q: %w", g, f.variant, err)}
		}
	}
	if !f.auto {
		if err := needTerminal(e); err != nil {
			return &exitError{code: 2, err: err}
		}
	} else if f.dataDir == "" {
		// Random games are no part of the player's record: they go to a
		// directory of their own unless --data-dir names one.
		tmp, err := os.MkdirTemp("", "tabuleiro-auto-")
		if err != nil {
			return &exitError{code: 1, err: err}
		}
		defer func() { _ = os.RemoveAll(tmp) }()
		f.dataDir = tmp
	}
	cn, err := f.connect(ctx, e)
	if err != nil {
		return err
	}
	defer func() { _ = cn.stop() }()
	// Each server keeps its own players: a first game on a server makes a
	// new identity there, under the name already used here.
	name := cmp.Or(f.name, cn.knownName(), defaultName(e))
	me, err := cn.identity(ctx, name, 0)
	if err != nil {
		if bad := badName(e.p, f.name, err); bad != nil {
			return bad
		}
		return &exitError{code: 1, err: reachErr(e.p, err, cn.c.Target())}
	}
	if f.name != "" && me.Name != f.name {
		// --name on a kept identity renames it (same player: history and
		// ratings stay).
		if me, err = cn.rename(ctx, me, f.name); err != nil {
			if bad := badName(e.p, f.name, err); bad != nil {
				return bad
			}
			return &exitError{code: 2, err: err}
		}
	}
	var second client.Player
	if opp.local {
		if second, err = cn.identity(ctx, "", 1); err != nil {
			return &exitError{code: 1, err: err}
		}
	}
	t := &tables{p: e.p, c: cn.c, me: me, second: second, opp: opp, tc: tc, password: f.password, out: e.stderr, addr: cn.c.Target(), local: cn.local != nil,
		dataDir: f.dataDir}
	// A game at one keyboard resumes with both seats whatever --vs says.
	if t.secondID = cn.knownExtra(1); !opp.local && t.secondID != "" {
		t.loadSecond = func() (client.Player, error) { return cn.identity(ctx, "", 1) }
	}
	if f.auto {
		return f.runAuto(ctx, e, t, gameList)
	}
	g := gameList[0]
	t.game = gameProto(g)
	if t.variant, err = variantOf(g, f.variant); err != nil {
		return &exitError{code: 2, err: err}
	}
	return runTUI(ctx, e, t, f.explicit && !f.resume, f.resume)
}

// needTerminal refuses interactive play when standard input or output is
// not a terminal (`play | tee log`): the screen would be garbled.
func needTerminal(e *env) error {
	for _, s := range []struct {
		name string
		f    any
	}{{"error.stdin_not_terminal", e.stdin}, {"error.stdout_not_terminal", e.stdout}} {
		if f, ok := s.f.(*os.File); !ok || !term.IsTerminal(f.Fd()) {
			return e.errorf(s.name)
		}
	}
	return nil
}

// gameChoice lists the games for a message: "quoridor, corners or banqi".
func gameChoice(p *text.Printer) string {
	names := gameNames()
	if len(names) < 2 {
		return strings.Join(names, "")
	}
	return text.T(p, "list.or", "first", strings.Join(names[:len(names)-1], ", "), "last", names[len(names)-1])
}

// tables makes the tables the terminal client plays at.
type tables struct {
	p      *text.Printer
	c      *client.Client
	me     client.Player
	second client.Player // the second player of a local game
	// secondID is the second local player's id when one was ever signed
	// in here; loadSecond signs it in when this run did not (--vs other
	// than local), to resume a game at one keyboard.
	secondID   string
	loadSecond func() (client.Player, error)
	opp        opponent
	tc         *gamev1.TimeControl
	password   string
	out        io.Writer // progress of rooms and queues, unless notify is set
	notify     func(string)
	addr       string // the server's address, for the invitation
	local      bool   // the server runs in this process
	dataDir    string // --data-dir when given (for the resume command)
	game       gamev1.Game
	variant    string
}

// matchFor creates (or finds, for rooms and queues) a match and returns
// its id and the seat of each local player.
func (t *tables) matchFor(ctx context.Context, round int) (string, map[gamev1.Seat]client.Player, error) {
	mctx := t.me.Context(ctx)
	switch {
	case t.opp.local:
		return t.localMatch(ctx, round)
	case t.opp.room != "" && t.opp.room != "new" && round > 0:
		// The friend's room has had its game; a new one needs a new room.
		return "", nil, errors.New(t.t("error.room_over", "room", t.opp.room, "server", t.addr))
	case t.opp.room != "":
		return t.roomMatch(ctx)
	case t.opp.queue:
		return t.queueMatch(ctx)
	}
	resp, err := t.c.Lobby.PlayBot(mctx, &lobbyv1.PlayBotRequest{Game: t.game, Variant: t.variant, Level: t.opp.level, TimeControl: t.tc})
	if err != nil {
		if status.Code(err) == codes.FailedPrecondition && strings.Contains(err.Error(), "already in match") {
			// One live match per player (the lobby's rule).
			return "", nil, t.errorf("error.play_bot_busy", "error", err, "command", selfCommand())
		}
		return "", nil, t.errorf("error.play_bot", "error", err)
	}
	return resp.GetMatchId(), map[gamev1.Seat]client.Player{resp.GetYourSeat(): t.me}, nil
}

// badName is the refusal of the name given with --name, when err is the
// server's (INVALID_ARGUMENT on display_name: lobby.ValidateDisplayName
// is the rule), said as a player's sentence; nil for any other error.
// A name that is not UTF-8 never reaches the server (gRPC refuses to
// marshal it): that error is the same refusal.
func badName(p *text.Printer, name string, err error) error {
	if name == "" || err == nil {
		return nil
	}
	if utf8.ValidString(name) && (status.Code(err) != codes.InvalidArgument || !strings.Contains(err.Error(), "display_name")) {
		return nil
	}
	return &exitError{code: 2, err: errors.New(text.T(p, "error.bad_name", "name", strconv.Quote(name)))}
}

// localMatch seats both players of this keyboard through a private room:
// the host (the first player) takes white on even rounds and black on odd
// ones, so that the players alternate who starts.
func (t *tables) localMatch(ctx context.Context, round int) (string, map[gamev1.Seat]client.Player, error) {
	seat := gamev1.Seat_SEAT_FIRST
	if round%2 == 1 {
		seat = gamev1.Seat_SEAT_SECOND
	}
	pw := rand.Text()[:16]
	room, err := t.c.Lobby.CreateRoom(t.me.Context(ctx), &lobbyv1.CreateRoomRequest{
		Game: t.game, Variant: t.variant, TimeControl: t.tc, Visibility: lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE,
		Password: pw, HostSeat: seat, OneDevice: true,
	})
	if err != nil {
		return "", nil, t.errorf("error.open_local_room", "error", err)
	}
	joined, err := t.c.Lobby.JoinRoom(t.second.Context(ctx), &lobbyv1.JoinRoomRequest{
		Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: room.GetRoom().GetInviteCode()}, Password: pw, OneDevice: true,
	})
	if err != nil {
		return "", nil, t.errorf("error.join_local_room", "error", err)
	}
	id, theirs := joined.GetRoom().GetMatchId(), joined.GetYourSeat()
	if id == "" {
		return "", nil, errors.New(t.t("error.local_room_no_match"))
	}
	mine := gamev1.Seat_SEAT_FIRST
	if theirs == gamev1.Seat_SEAT_FIRST {
		mine = gamev1.Seat_SEAT_SECOND
	}
	return id, map[gamev1.Seat]client.Player{mine: t.me, theirs: t.second}, nil
}

func (t *tables) roomMatch(ctx context.Context) (string, map[gamev1.Seat]client.Player, error) {
	mctx := t.me.Context(ctx)
	var roomID string
	if t.opp.room == "new" {
		vis := lobbyv1.RoomVisibility_ROOM_VISIBILITY_PUBLIC
		if t.password != "" {
			vis = lobbyv1.RoomVisibility_ROOM_VISIBILITY_PRIVATE
		}
		r, err := t.c.Lobby.CreateRoom(mctx, &lobbyv1.CreateRoomRequest{Game: t.game, Variant: t.variant, TimeControl: t.tc, Visibility: vis, Password: t.password})
		if err != nil {
			return "", nil, t.errorf("error.open_room", "error", err)
		}
		roomID = r.GetRoom().GetRoomId()
		t.say(t.invitation(r.GetRoom(), t.gameLine()))
	} else {
		j, err := t.joinRoom(mctx)
		if err != nil {
			return "", nil, err
		}
		if id := j.GetRoom().GetMatchId(); id != "" {
			return id, map[gamev1.Seat]client.Player{j.GetYourSeat(): t.me}, nil
		}
		roomID = j.GetRoom().GetRoomId()
	}
	w, err := t.c.Lobby.WatchRoom(mctx, &lobbyv1.WatchRoomRequest{RoomId: roomID})
	if err != nil {
		return "", nil, t.errorf("error.watch_room", "error", err)
	}
	for {
		u, err := w.Recv()
		if err != nil {
			return "", nil, t.errorf("error.watch_room", "error", err)
		}
		if id := u.GetRoom().GetMatchId(); id != "" {
			return id, map[gamev1.Seat]client.Player{u.GetYourSeat(): t.me}, nil
		}
		if u.GetRoom().GetStatus() == lobbyv1.RoomStatus_ROOM_STATUS_CLOSED {
			return "", nil, errors.New(t.t("error.room_closed"))
		}
	}
}

// resumeHint is the command that comes back to an unfinished game: with
// the server and data directory of this run when they are not the
// defaults (another directory holds other identities and games).
func (t *tables) resumeHint() string {
	return "`" + t.resumeCommand() + "`"
}

func (t *tables) resumeCommand() string {
	c := selfCommand() + " play --resume"
	if !t.local {
		c += " --server " + shellQuote(t.addr)
	}
	if t.dataDir != "" {
		c += " --data-dir " + shellQuote(t.dataDir)
	}
	return c
}

// selfCommand is how the user started this program: "go run
// ./cmd/tabuleiro" when it runs from go run's build cache (a new user has
// no tabuleiro binary on the PATH), "tabuleiro" otherwise.
func selfCommand() string {
	if exe, err := os.Executable(); err == nil && filepath.Base(exe) == "tabuleiro" && strings.Contains(exe, string(filepath.Separator)+"go-build") {
		return "go run ./cmd/tabuleiro"
	}
	return "tabuleiro"
}

// shellQuote quotes s for a POSIX shell when it needs quoting.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:@+,=~", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// rematcher offers, accepts and follows the rematch of a finished room
// game with the same opponent (lobby.v1 OfferRematch, DeclineRematch,
// WatchRematch); the new match swaps the seats.
func (t *tables) rematcher(ctx context.Context) *tui.Rematcher {
	mctx := t.me.Context(ctx)
	return &tui.Rematcher{
		Offer: func(id string) (*lobbyv1.Rematch, error) {
			r, err := t.c.Lobby.OfferRematch(mctx, &lobbyv1.OfferRematchRequest{MatchId: id})
			return r.GetRematch(), err
		},
		Decline: func(id string) (*lobbyv1.Rematch, error) {
			r, err := t.c.Lobby.DeclineRematch(mctx, &lobbyv1.DeclineRematchRequest{MatchId: id})
			return r.GetRematch(), err
		},
		Watch: func(id string) (func() (*lobbyv1.Rematch, error), error) {
			w, err := t.c.Lobby.WatchRematch(mctx, &lobbyv1.WatchRematchRequest{MatchId: id})
			if err != nil {
				return nil, err
			}
			return func() (*lobbyv1.Rematch, error) {
				u, err := w.Recv()
				return u.GetRematch(), err
			}, nil
		},
		Table: func(r *lobbyv1.Rematch) (*tui.Table, error) {
			return t.table(ctx, r.GetNewMatchId(), map[gamev1.Seat]client.Player{r.GetYourSeat(): t.me}, "")
		},
	}
}

// say shows progress: on the waiting screen, or on the progress writer.
func (t *tables) say(s string) {
	if t.notify != nil {
		t.notify(s)
		return
	}
	fmt.Fprintln(t.out, s)
}

// invitation tells the host how a friend joins the room.
func (t *tables) invitation(r *lobbyv1.Room, game string) string {
	join := fmt.Sprintf("tabuleiro play --room %s --server %s", r.GetInviteCode(), t.addr)
	if t.password != "" {
		join += " --password " + t.t("invite.password_word")
	}
	s := t.t("invite.open", "game", game, "code", r.GetInviteCode(), "room", r.GetRoomId(), "command", join) + "\n"
	if t.local {
		s += t.t("invite.local") + "\n"
	}
	return s + t.t("invite.waiting")
}

// t is the message key in the player's language.
func (t *tables) t(key string, kv ...any) string { return text.T(t.p, key, kv...) }

// errorf is env.errorf for the tables.
func (t *tables) errorf(key string, kv ...any) error { return (&env{p: t.p}).errorf(key, kv...) }

// gameLine names the game, variant and clock of a new game: "Quoridor
// standard, no clock".
func (t *tables) gameLine() string {
	s := text.Game(t.p, t.game) + " " + t.variant
	if t.tc == nil {
		return t.t("game_line.no_clock", "game", s)
	}
	return t.t("game_line.clock", "game", s, "clock", fmt.Sprintf("%s+%s", time.Duration(t.tc.GetBaseMs())*time.Millisecond, time.Duration(t.tc.GetIncrementMs())*time.Millisecond))
}

// joinRoom joins the room --room names, by invite code or by room id.
func (t *tables) joinRoom(ctx context.Context) (*lobbyv1.JoinRoomResponse, error) {
	j, err := t.c.Lobby.JoinRoom(ctx, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_InviteCode{InviteCode: t.opp.room}, Password: t.password})
	if status.Code(err) == codes.NotFound {
		j, err = t.c.Lobby.JoinRoom(ctx, &lobbyv1.JoinRoomRequest{Target: &lobbyv1.JoinRoomRequest_RoomId{RoomId: t.opp.room}, Password: t.password})
		if status.Code(err) == codes.NotFound {
			err = errors.New(t.t("error.no_room"))
			if t.local {
				err = errors.New(t.t("error.no_room_local"))
			}
		}
	}
	if err != nil && strings.Contains(err.Error(), "you host room") {
		// Both players of one machine share the identity of one data
		// directory.
		err = t.errorf("error.host_own_room", "error", err)
	}
	if err != nil {
		return nil, t.errorf("error.join_room", "room", t.opp.room, "error", err)
	}
	return j, nil
}

func (t *tables) queueMatch(ctx context.Context) (string, map[gamev1.Seat]client.Player, error) {
	fctx, cancel := context.WithCancel(t.me.Context(ctx))
	defer cancel()
	s, err := t.c.Lobby.FindMatch(fctx, &lobbyv1.FindMatchRequest{Game: t.game, Variant: t.variant, TimeControl: t.tc})
	if err != nil {
		return "", nil, t.errorf("error.queue", "error", err)
	}
	for {
		u, err := s.Recv()
		if err != nil {
			return "", nil, t.errorf("error.queue", "error", err)
		}
		if m := u.GetMatched(); m != nil {
			return m.GetMatchId(), map[gamev1.Seat]client.Player{m.GetYourSeat(): t.me}, nil
		}
		if u.GetQueued() != nil {
			fmt.Fprintln(t.out, t.t("queue.waiting"))
		}
	}
}

// table joins a match for the seats played here. title says whom the game
// is against; "" is what --vs, --room or --queue asked for, the person met
// in a room or a queue named. A bot opponent is named by the match itself,
// with its level's ladder rating when the variant's ladder was measured.
func (t *tables) table(ctx context.Context, id string, seats map[gamev1.Seat]client.Player, title string) (*tui.Table, error) {
	nameOpponent := title == "" && (t.opp.room != "" || t.opp.queue)
	tb := &tui.Table{MatchID: id, Title: cmp.Or(title, t.opp.render), Seats: map[gamev1.Seat]tui.Conn{}}
	if m, err := t.c.Match.GetMatch(t.me.Context(ctx), &matchv1.GetMatchRequest{MatchId: id}); err == nil {
		for _, s := range m.GetMatch().GetSeats() {
			p := s.GetParticipant()
			switch {
			case p.GetBotLevel() != gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED:
				tb.Title = botTitle(t.p, p.GetBotLevel(), t.botRating(ctx, m.GetMatch().GetGame(), m.GetMatch().GetVariant(), p.GetBotLevel()))
			case nameOpponent && p.GetPlayerId() != t.me.ID && p.GetDisplayName() != "":
				tb.Title = t.t("title.vs", "name", p.GetDisplayName()) // name the person met there
			}
		}
	}
	var streams []*client.Stream
	for seat, p := range seats {
		st, err := t.c.Join(ctx, p, id, 0)
		if err != nil {
			for _, s := range streams {
				s.Close()
			}
			return nil, err
		}
		streams = append(streams, st)
		tb.Seats[seat] = st
	}
	lctx := t.me.Context(ctx)
	tb.Legal = func(req *matchv1.ListLegalPliesRequest) (*matchv1.ListLegalPliesResponse, error) {
		return t.c.Match.ListLegalPlies(lctx, req)
	}
	tb.Rejoin = func(seat gamev1.Seat, last int64) (tui.Conn, error) {
		return t.c.Join(ctx, seats[seat], id, last)
	}
	return tb, nil
}

// resume joins the unfinished match id (one of active) with every seat
// that a player of this keyboard holds: the person's, and the second
// player's of a game at one keyboard whatever --vs says this time. The
// title names the match's real opponent.
func (t *tables) resume(ctx context.Context, active []*lobbyv1.MatchSummary, id string) (*tui.Table, error) {
	seats := map[gamev1.Seat]client.Player{}
	var title string
	for _, m := range active {
		if m.GetMatchId() != id {
			continue
		}
		for _, p := range m.GetParticipants() {
			switch pid := p.GetPlayerId(); {
			case pid == t.me.ID:
				seats[p.GetSeat()] = t.me
			case pid != "" && pid == t.second.ID:
				seats[p.GetSeat()] = t.second
			case pid != "" && pid == t.secondID && t.loadSecond != nil:
				second, err := t.loadSecond()
				if err != nil {
					return nil, err
				}
				t.second = second
				seats[p.GetSeat()] = second
			}
		}
		title = resumedTitle(t.p, m, t.me.ID, cmp.Or(t.second.ID, t.secondID))
	}
	if len(seats) == 0 {
		return nil, errors.New(t.t("error.no_seat", "match", id))
	}
	return t.table(ctx, id, seats, title)
}

// botTitle names a bot opponent: "vs Bot (hard)", or "vs Bot (hard · 700)"
// with its level's ladder rating (Elo scale, easy = 0).
func botTitle(p *text.Printer, level gamev1.BotLevel, r *gamev1.BotRating) string {
	lvl := text.Level(p, level)
	if r == nil {
		return text.T(p, "title.bot", "level", lvl)
	}
	return text.T(p, "title.bot_rating", "level", lvl, "rating", int(r.GetRating()))
}

// botRating is a level's ladder rating in a variant (lobby.v1
// ListVariants), or nil when the variant's ladder was not measured or the
// lobby cannot say.
func (t *tables) botRating(ctx context.Context, g gamev1.Game, variant string, level gamev1.BotLevel) *gamev1.BotRating {
	vs, err := t.c.Lobby.ListVariants(t.me.Context(ctx), &lobbyv1.ListVariantsRequest{Game: g})
	if err != nil {
		return nil
	}
	for _, v := range vs.GetVariants() {
		if v.GetId() != variant {
			continue
		}
		for _, r := range v.GetBotRatings() {
			if r.GetLevel() == level {
				return r
			}
		}
	}
	return nil
}

// resumedTitle names the opponent of a resumed match as a new game's
// title would (the flags of this run do not describe it).
func resumedTitle(pr *text.Printer, m *lobbyv1.MatchSummary, me, second string) string {
	var others []string
	mine := 0
	for _, p := range m.GetParticipants() {
		switch {
		case p.GetPlayerId() == me:
			mine++
		case second != "" && p.GetPlayerId() == second:
			others = append(others, text.T(pr, "title.local"))
		case p.GetBotLevel() != gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED:
			others = append(others, botTitle(pr, p.GetBotLevel(), nil))
		default:
			others = append(others, text.T(pr, "title.vs", "name", p.GetDisplayName()))
		}
	}
	if mine == 0 || len(others) != 1 {
		return ""
	}
	return others[0]
}

// unfinishedLine mentions n unfinished games not offered (others, when
// some were).
func (t *tables) unfinishedLine(n int, others bool) string {
	if others {
		return t.t("unfinished.others", "count", n, "command", t.resumeCommand())
	}
	return t.t("unfinished", "count", n, "command", t.resumeCommand())
}

// compatible reports whether unfinished match m is a game that this run's
// flags ask for: the same game, variant and clock against the same bot
// level, or at this keyboard. A room or the queue always means a new
// opponent.
func (t *tables) compatible(m *lobbyv1.MatchSummary) bool {
	if m.GetGame() != t.game || m.GetVariant() != t.variant || !proto.Equal(m.GetTimeControl(), t.tc) {
		return false
	}
	for _, p := range m.GetParticipants() {
		switch {
		case p.GetPlayerId() == t.me.ID:
		case t.opp.local:
			return t.secondID != "" && p.GetPlayerId() == t.secondID || t.second.ID != "" && p.GetPlayerId() == t.second.ID
		case t.opp.level != gamev1.BotLevel_BOT_LEVEL_UNSPECIFIED:
			return p.GetBotLevel() == t.opp.level
		default:
			return false
		}
	}
	return false
}

// unfinished drops the matches that ended since they were listed (a
// deadline the sweeper fired on start-up): they cannot be resumed.
func (t *tables) unfinished(ctx context.Context, ms []*lobbyv1.MatchSummary) []*lobbyv1.MatchSummary {
	var out []*lobbyv1.MatchSummary
	for _, m := range ms {
		resp, err := t.c.Match.GetMatch(t.me.Context(ctx), &matchv1.GetMatchRequest{MatchId: m.GetMatchId()})
		if err == nil && resp.GetMatch().GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
			continue
		}
		if err == nil && m.GetToMove() == gamev1.Seat_SEAT_UNSPECIFIED {
			// The lobby's list of live matches does not say whose turn it
			// is; the match does.
			m = proto.CloneOf(m)
			m.ToMove = resp.GetMatch().GetView().GetToMove()
		}
		out = append(out, m)
	}
	return out
}

// runTUI plays in the terminal. Unfinished games are offered first, unless
// the command line asked for a particular game (startNew): then they are
// only mentioned. With resumeOnly (--resume) and none to offer it says so
// and starts nothing: a game left past its reconnection window has ended.
func runTUI(ctx context.Context, e *env, t *tables, startNew, resumeOnly bool) error {
	active, err := t.c.Lobby.ListActiveMatches(t.me.Context(ctx), &lobbyv1.ListActiveMatchesRequest{})
	if err != nil {
		return &exitError{code: 1, err: t.errorf("error.list_unfinished", "error", err)}
	}
	unfinished := t.unfinished(ctx, active.GetMatches())
	if resumeOnly && len(unfinished) == 0 {
		key, history := "resume.none_here", "tabuleiro history"
		if !t.local {
			key, history = "resume.none_on", "tabuleiro history --server "+shellQuote(t.addr)
		}
		if t.dataDir != "" {
			history += " --data-dir " + shellQuote(t.dataDir)
		}
		fmt.Fprintln(e.stdout, t.t(key, "server", t.addr, "history", history, "command", strings.Replace(t.resumeCommand(), " play --resume", " play", 1)))
		return nil
	}
	// With flags naming a game, the unfinished games that are that game
	// are offered; the others are mentioned.
	var reminder string
	if startNew && len(unfinished) > 0 {
		var same, other []*lobbyv1.MatchSummary
		for _, m := range unfinished {
			if t.compatible(m) {
				same = append(same, m)
			} else {
				other = append(other, m)
			}
		}
		if len(other) > 0 {
			reminder = t.unfinishedLine(len(other), len(same) > 0)
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
		Printer:    e.p,
	}
	if t.opp.room != "" {
		deps.Rematch = t.rematcher(ctx)
	}
	in, _ := e.stdin.(*os.File)
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithOutput(e.stdout), tea.WithAltScreen()}
	if in != nil {
		if term.IsTerminal(in.Fd()) {
			dropTypeahead(in)
		}
		opts = append(opts, tea.WithInput(in))
	} else {
		opts = append(opts, tea.WithInput(e.stdin))
	}
	p := tea.NewProgram(tui.New(deps), opts...)
	t.notify = func(s string) { p.Send(tui.Notice(s)) }
	final, err := p.Run()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) {
		return &exitError{code: 1, err: err}
	}
	if m, ok := final.(tui.Model); ok {
		afterTUI(e, m, deps.ResumeHint, reminder)
		if err := m.Err(); err != nil {
			return &exitError{code: 1, err: err}
		}
	}
	return nil
}

// afterTUI prints, once the game screen is gone (the alternate screen
// takes what was on it), what the player should keep: the result, or how
// to come back to a game left unfinished; then the reminder of other
// unfinished games.
func afterTUI(e *env, m tui.Model, resumeHint, reminder string) {
	if r := m.Result(); r != "" {
		fmt.Fprintln(e.stdout, r)
	} else if id := m.Unfinished(); id != "" && resumeHint != "" {
		fmt.Fprintln(e.stdout, e.t("after.unfinished", "match", id, "command", resumeHint))
	}
	if reminder != "" {
		fmt.Fprintln(e.stdout, reminder)
	}
}

// runAuto plays each game --games times with random plies and prints one
// line per game.
func (f *playFlags) runAuto(ctx context.Context, e *env, t *tables, gameList []engine.Game) error {
	var failed int
	round := 0
	for _, g := range gameList {
		variant, err := variantOf(g, f.variant)
		if err != nil || f.game == "all" {
			variant, _ = variantOf(g, "")
		}
		t.game, t.variant = gameProto(g), variant
		for i := range f.games {
			seed := f.seed + uint64(round)
			id, seats, err := t.matchFor(ctx, round)
			round++
			if err != nil {
				return &exitError{code: 1, err: err}
			}
			res, err := autoSeats(ctx, t.c, id, seats, seed)
			if err != nil {
				failed++
				fmt.Fprintln(e.stderr, e.t("auto.failed", "game", string(g), "variant", variant, "n", i+1, "match", id, "error", text.Err(e.p, err)))
				continue
			}
			you := ""
			if len(seats) == 1 {
				for seat := range seats {
					you = " " + map[gamev1.Seat]string{gamev1.Seat_SEAT_FIRST: e.t("auto.you_first"), gamev1.Seat_SEAT_SECOND: e.t("auto.you_second")}[seat]
				}
			}
			fmt.Fprintln(e.stdout, e.t("auto.line", "game", string(g), "variant", variant, "opponent", t.opp.render+you,
				"outcome", outcomeText(e.p, g, res.Outcome), "plies", e.t("plies", "count", res.Plies)))
		}
	}
	if failed > 0 {
		return &exitError{code: 1, err: e.errorf("auto.games_failed", "count", failed)}
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

// outcomeText says how a game ended, naming seats as the game does.
func outcomeText(p *text.Printer, g engine.Game, o *gamev1.Outcome) string {
	if o.GetResult() == gamev1.Result_RESULT_ONGOING {
		return text.T(p, "outcome.ongoing")
	}
	return text.Lower(text.Outcome(p, o, seatWord(p, g, o.GetWinner()), 0))
}

func seatWord(p *text.Printer, g engine.Game, s gamev1.Seat) string {
	return text.Seat(p, gameProto(g), s, false, false)
}
