package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

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
	"tabuleiro.dev/pkg/platform/testenv"
)

// localVars are the variables of a command run against a one-process
// server on a fresh data directory and database schema.
func localVars(t *testing.T) map[string]string {
	return map[string]string{"TABULEIRO_DATA_DIR": t.TempDir(), "USER": "tester"}
}

// CI's whole-game check: `play --auto` plays a full game of each game
// against bot:easy, then two players at one keyboard, through the
// one-process mode with its embedded stores (nothing installed, as in
// README's first command); history and stats, each a later run on the
// same data directory, then list every game.
func TestPlayAutoEveryGame(t *testing.T) {
	t.Parallel()
	vars := localVars(t)
	code, out, errOut := runWithEnv(t, vars, "play", "--auto", "--game", "all", "--data-dir", vars["TABULEIRO_DATA_DIR"])
	if code != 0 {
		t.Fatalf("play --auto vs bot: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, g := range []string{"quoridor standard: vs Bot (easy) (you moved ", "corners classic-3x3: vs Bot (easy) (you moved ", "banqi standard: vs Bot (easy) (you moved "} {
		if !strings.Contains(out, g) {
			t.Errorf("stdout lacks %q:\n%s", g, out)
		}
	}
	if strings.Contains(out, "ongoing") {
		t.Errorf("a game did not end:\n%s", out)
	}
	code, out, errOut = runWithEnv(t, vars, "play", "--auto", "--game", "corners", "--vs", "local", "--data-dir", vars["TABULEIRO_DATA_DIR"])
	if code != 0 || !strings.Contains(out, "two players, one keyboard") {
		t.Fatalf("play --auto --vs local: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// A finished game reaches history through the outbox, a moment later.
	deadline := testenv.Deadline(t)
	for {
		code, out, errOut = runWithEnv(t, vars, "history")
		if code == 0 && strings.Count(out, "\n") == 5 { // the header and 4 games
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("history: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	}
	code, out, _ = runWithEnv(t, vars, "stats")
	if code != 0 || !strings.Contains(out, "easy") {
		t.Errorf("stats: exit %d, no record against easy:\n%s", code, out)
	}
}

// The real game records replay through the match service, both seats
// driven by the command against a running server, and end as the rules
// engine says they end.
func TestReplayRealGames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	srv, err := local.Start(ctx, local.Options{DataDir: dir, DatabaseURL: testenv.PostgresDSN(t)})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := srv.Wait(); err != nil {
			t.Error(err)
		}
	})
	key, err := os.ReadFile(filepath.Join(dir, "token.key"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"TABULEIRO_TOKEN_KEY": strings.TrimSpace(string(key)), "TABULEIRO_DATA_DIR": t.TempDir()}
	var files []string
	for _, g := range games.List() {
		m, _ := filepath.Glob(filepath.Join("..", "..", "pkg", "engine", string(g), "testdata", "real-games", "*.txt"))
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d real game records, want at least 10", len(files))
	}
	if testing.Short() {
		// Two records of each game (the engine's own tests replay them
		// all; the test command's deep step replays them all here too).
		files = firstPerGame(files, 2)
	}
	for i, file := range files {
		g := engine.Game(strings.Split(filepath.Base(file), "-")[0])
		want, wantCode := engineOutcome(t, g, file)
		args := []string{"replay", "--server", srv.Addr(), file}
		if i%2 == 0 { // the others take the game from the record's header
			args = append(args, "--game", string(g))
		}
		code, out, errOut := runWithEnv(t, vars, args...)
		if code != wantCode || !strings.Contains(out, "outcome: "+want+"\n") || strings.Count(out, "outcome:") != 1 {
			t.Errorf("%s: exit %d, want %d and the outcome %q once\nstdout:\n%s\nstderr:\n%s", file, code, wantCode, want, out, errOut)
		}
	}
	// --step shows the start and the board after every ply, then the
	// outcome once (standard input is no terminal: no waiting).
	code, out, errOut := runWithEnv(t, vars, "replay", "--server", srv.Addr(), "--step", files[0])
	if code != 0 || !strings.HasPrefix(out, "start\n") || !strings.Contains(out, "\nply 1: ") || !strings.Contains(out, "\nply 2: ") ||
		strings.Count(out, "outcome:") != 1 {
		t.Errorf("replay --step %s: exit %d\nstdout:\n%.600s\nstderr:\n%s", files[0], code, out, errOut)
	}
	// A --game that contradicts the record's header is refused.
	code, _, errOut = runWithEnv(t, vars, "replay", "--server", srv.Addr(), "--game", "corners", files[0])
	if code != 2 || !strings.Contains(errOut, "--game says corners") {
		t.Errorf("replay --game corners of %s: exit %d, stderr %q; want 2 and the disagreement named", files[0], code, errOut)
	}
}

// firstPerGame keeps the first n records of each game (the file name's
// first word).
func firstPerGame(files []string, n int) []string {
	seen := map[string]int{}
	var out []string
	for _, f := range files {
		g := strings.Split(filepath.Base(f), "-")[0]
		if seen[g] < n {
			seen[g]++
			out = append(out, f)
		}
	}
	return out
}

// engineOutcome replays a record with the rules engine alone, for the
// outcome the match service must reach, worded as the command words it;
// the exit status is 1 when the game ends before the record does.
func engineOutcome(t *testing.T, g engine.Game, file string) (string, int) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := engine.ParseRecord(string(b))
	if err != nil {
		t.Fatal(err)
	}
	layout, _ := rec.Header("layout")
	pos, err := games.New(g, "", layout)
	if err != nil {
		t.Fatal(err)
	}
	code := 0
	for i, tok := range rec.Plies {
		if pos.Outcome().Over() {
			code = 1
			break
		}
		ply, err := pos.ParsePly(tok)
		if err != nil {
			t.Fatalf("%s ply %d: %v", file, i+1, err)
		}
		if pos, err = pos.Play(ply); err != nil {
			t.Fatalf("%s ply %d: %v", file, i+1, err)
		}
	}
	o := pos.Outcome()
	reason := strings.ReplaceAll(o.Reason.String(), "-", " ")
	switch o.Result {
	case engine.Win:
		seat := gamev1.Seat_SEAT_FIRST
		if o.Winner == engine.Second {
			seat = gamev1.Seat_SEAT_SECOND
		}
		return seatWord(nil, g, seat) + " wins by " + reason, code
	case engine.Draw:
		return "draw by " + reason, code
	}
	return "ongoing", code
}

// syncBuffer is a bytes.Buffer safe to read while a command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// serve prints a banner naming the stores and what persists, serves until
// interrupted, and then exits 0. It logs no line per call unless asked to
// (--access-log, or TABULEIRO_ACCESS_LOG=1).
func TestServeBanner(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		args      []string
		env       string
		accessLog bool
	}{
		{"quiet by default", nil, "", false},
		{"--access-log", []string{"--access-log"}, "", true},
		{"TABULEIRO_ACCESS_LOG=1", nil, "1", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			out, errOut := serveOneCall(t, tc.args, tc.env)
			for _, want := range []string{"lobby, match and bot serving on 127.0.0.1:", "embedded Redis", "games in progress persist", "PostgreSQL at", "web:        ", "http://127.0.0.1:", "logs:       "} {
				if !strings.Contains(out, want) {
					t.Errorf("banner lacks %q:\n%s", want, out)
				}
			}
			if got := strings.Contains(errOut, `"msg":"rpc finished"`); got != tc.accessLog {
				t.Errorf("a line per call on stderr: %v, want %v; stderr:\n%s", got, tc.accessLog, errOut)
			}
		})
	}
}

// serveOneCall runs serve (with extra args and TABULEIRO_ACCESS_LOG=env),
// signs a guest in through it, interrupts it, and returns what it wrote.
func serveOneCall(t *testing.T, extra []string, accessEnv string) (stdout, stderr string) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errOut syncBuffer
	vars := localVars(t)
	vars["TABULEIRO_ACCESS_LOG"] = accessEnv
	done := make(chan int)
	go func() {
		done <- run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--database-url", testenv.PostgresDSN(t)}, extra...),
			func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errOut)
	}()
	deadline := time.After(time.Until(testenv.Deadline(t)))
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for !strings.Contains(out.String(), "logs:") {
		select {
		case <-deadline:
			t.Fatalf("no banner; stdout %q stderr %q", out.String(), errOut.String())
		case <-poll.C:
		}
	}
	_, rest, _ := strings.Cut(out.String(), "serving on ")
	addr, _, _ := strings.Cut(rest, "\n")
	c, err := client.Dial(addr)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.SignIn(t.Context(), "Ana"); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exited %d after the interrupt; stderr %s", code, errOut.String())
	}
	return out.String(), errOut.String()
}

// startLocal runs a one-process server for the test and returns a client
// and a signed-in player.
func startLocal(t *testing.T) (*client.Client, client.Player, context.Context) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.Context()))
	srv, err := local.Start(ctx, local.Options{DataDir: t.TempDir(), DatabaseURL: testenv.PostgresDSN(t)})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		if err := srv.Wait(); err != nil {
			t.Error(err)
		}
	})
	c, err := client.Dial(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	me, err := c.SignIn(t.Context(), "Ana")
	if err != nil {
		t.Fatal(err)
	}
	return c, me, ctx
}

// botTUI is the terminal client at a game against bot:easy in which the
// person plays white; *id receives the match id once it starts.
func botTUI(t *testing.T, c *client.Client, me client.Player, ctx context.Context, g gamev1.Game, variant string) (*screenTest, func() string) {
	return botTUIIn(t, nil, c, me, ctx, g, variant)
}

// botTUIIn is botTUI in p's language.
func botTUIIn(t *testing.T, p *text.Printer, c *client.Client, me client.Player, ctx context.Context, g gamev1.Game, variant string) (*screenTest, func() string) {
	tb := &tables{p: p, c: c, me: me, opp: opponent{level: gamev1.BotLevel_BOT_LEVEL_EASY, render: botTitle(p, gamev1.BotLevel_BOT_LEVEL_EASY, nil)}, game: g, variant: variant}
	var (
		mu sync.Mutex
		id string
	)
	deps := tui.Deps{Start: func(int) (*tui.Table, error) {
		resp, err := c.Lobby.PlayBot(me.Context(ctx), &lobbyv1.PlayBotRequest{
			Game: g, Variant: variant, Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_FIRST})
		if err != nil {
			return nil, err
		}
		mu.Lock()
		id = resp.GetMatchId()
		mu.Unlock()
		return tb.table(ctx, resp.GetMatchId(), map[gamev1.Seat]client.Player{gamev1.Seat_SEAT_FIRST: me}, "")
	}, Printer: p}
	matchID := func() string {
		mu.Lock()
		defer mu.Unlock()
		return id
	}
	last := new(atomic.Pointer[string])
	tm := teatest.NewTestModel(t, screenModel{tui.New(deps), last}, teatest.WithInitialTermSize(120, 40))
	return &screenTest{tm, last}, matchID
}

// screenModel is a model that keeps the last screen it drew, for the
// failure message of waitScreen (teatest's output is the terminal's byte
// stream, which redraws only the lines that changed).
type screenModel struct {
	tea.Model
	last *atomic.Pointer[string]
}

func (s screenModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	m, cmd := s.Model.Update(msg)
	return screenModel{m, s.last}, cmd
}

func (s screenModel) View() string {
	v := s.Model.View()
	s.last.Store(&v)
	return v
}

// screenTest is a teatest run of a screenModel.
type screenTest struct {
	*teatest.TestModel
	last *atomic.Pointer[string]
}

// FinalModel returns the program's final model, the terminal client's own.
func (s *screenTest) FinalModel(t testing.TB, opts ...teatest.FinalOpt) tea.Model {
	return s.TestModel.FinalModel(t, opts...).(screenModel).Model
}

// screenWait bounds waitScreen: far longer than any screen of these tests
// takes (a bot's reply on a loaded machine under -race); not a measure,
// only when to give up and show the last screen.
const screenWait = 2 * time.Minute

// waitScreen waits until the terminal has shown text, failing the test
// with the last screen when that does not come within screenWait (or the
// test's deadline, if sooner).
func waitScreen(t *testing.T, tm *screenTest, text string) {
	t.Helper()
	wait := min(screenWait, time.Until(testenv.Deadline(t)))
	var out []byte
	for end := time.Now().Add(wait); !bytes.Contains(out, []byte(text)); {
		b, err := io.ReadAll(tm.Output())
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
		if time.Now().After(end) {
			last := "(nothing drawn)"
			if s := tm.last.Load(); s != nil {
				last = *s
			}
			t.Fatalf("the screen did not show %q within %v; the last screen:\n%s", text, wait, last)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A whole short game (Corners classic 3×3, which ends by move 80 at the
// latest, C5, C6.3) against bot:easy in the terminal client, driven by
// Bubble Tea's test driver against the one-process mode: the first ply
// with the arrow keys (select a piece, its destinations marked, enter on
// one), the rest typed in notation; the screen ends with the result.
func TestTerminalGameAgainstEasyBot(t *testing.T) {
	t.Parallel()
	c, me, ctx := startLocal(t)
	tm, id := botTUI(t, c, me, ctx, gamev1.Game_GAME_CORNERS, "classic-3x3")
	waitScreen(t, tm, "Your move (white)")
	// The cursor starts on e5; c3 is the corner piece of white's home.
	for _, k := range []tea.KeyType{tea.KeyLeft, tea.KeyLeft, tea.KeyDown, tea.KeyDown, tea.KeyEnter} {
		tm.Send(tea.KeyMsg{Type: k})
	}
	waitScreen(t, tm, "+") // selected: its destinations are marked
	tm.Send(tea.KeyMsg{Type: tea.KeyRight})
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	for n := 0; ; n++ {
		m := waitTurn(t, c, me, id(), 2*(n+1))
		if n == 0 && (len(m.GetPlies()) == 0 || m.GetPlies()[0].GetNotation() != "c3-d3") {
			t.Fatalf("the first ply is %v, want c3-d3 played with the keys", m.GetPlies())
		}
		if m.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
			break
		}
		if n > 200 {
			t.Fatalf("no end after %d plies", n)
		}
		// The screen shows the bot's reply before the next ply is typed.
		waitScreen(t, tm, "black played "+m.GetPlies()[len(m.GetPlies())-1].GetNotation())
		tm.Type(":" + somePly(t, c, me, m, n))
		tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	}
	waitScreen(t, tm, "Play again?")
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(time.Until(testenv.Deadline(t)))).(tui.Model)
	if r := final.Result(); !strings.Contains(r, " by ") {
		t.Errorf("result %q, want a win or draw with its reason", r)
	}
}

// The wall preview against the real match service: the wall under the
// cursor is checked with ListLegalPlies and shown as placeable or not,
// with the rule, and rotates.
func TestTerminalWallPreview(t *testing.T) {
	t.Parallel()
	c, me, ctx := startLocal(t)
	tm, id := botTUI(t, c, me, ctx, gamev1.Game_GAME_QUORIDOR, "standard")
	waitScreen(t, tm, "Your move (white)")
	tm.Type("w")
	waitScreen(t, tm, "wall e1h: can be placed")
	tm.Type("r")
	waitScreen(t, tm, "wall e1v: can be placed")
	tm.Type("r")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	m := waitTurn(t, c, me, id(), 2)
	if got := m.GetPlies()[0].GetNotation(); got != "e1h" {
		t.Fatalf("first ply %q, want the wall e1h", got)
	}
	// Placing it left wall mode; w enters it again, on the nearest wall
	// that can be placed, not on the one placed. The same wall again is
	// refused once, with its reason as match.v1 gives it (Q3.2).
	tm.Type("w")
	waitScreen(t, tm, "wall e2h: can be placed")
	tm.Send(tea.KeyMsg{Type: tea.KeyDown})
	waitScreen(t, tm, "wall e1h: cannot be placed, that wall is already on the board (Q3.2)")
	tm.Type("q") // asks first: the game stays unfinished
	waitScreen(t, tm, "y quits")
	tm.Type("y")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(time.Until(testenv.Deadline(t)))).(tui.Model)
	// The screen that said how to come back is gone with the alternate
	// screen: the command says it again after.
	var after strings.Builder
	afterTUI(&env{stdout: &after}, final, "`tabuleiro play --resume --server h:1`", "")
	if want := "`tabuleiro play --resume --server h:1`"; !strings.Contains(after.String(), want) || !strings.Contains(after.String(), id()) {
		t.Errorf("after quitting the game: %q, want the match and %s", after.String(), want)
	}
}

// waitTurn polls the match until it is the person's turn after at least
// plies plies, or the match is over.
func waitTurn(t *testing.T, c *client.Client, me client.Player, id string, plies int) *matchv1.Match {
	t.Helper()
	deadline := testenv.Deadline(t)
	poll := time.NewTicker(2 * time.Millisecond)
	defer poll.Stop()
	for {
		resp, err := c.Match.GetMatch(me.Context(t.Context()), &matchv1.GetMatchRequest{MatchId: id})
		if err == nil {
			m := resp.GetMatch()
			if m.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED || (m.GetView().GetToMove() == gamev1.Seat_SEAT_FIRST && len(m.GetPlies()) >= plies) {
				return m
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("still not our turn (err %v): %d plies %v, outcome %v", err, len(resp.GetMatch().GetPlies()), resp.GetMatch().GetView().GetToMove(), resp.GetMatch().GetOutcome())
		}
		<-poll.C
	}
}

// somePly is one of the legal plies, varied with n.
func somePly(t *testing.T, c *client.Client, me client.Player, m *matchv1.Match, n int) string {
	t.Helper()
	resp, err := c.Match.ListLegalPlies(me.Context(t.Context()), &matchv1.ListLegalPliesRequest{
		MatchId: m.GetMatchId(), ExpectedPlyNumber: m.GetView().GetPlyCount() + 1})
	if err != nil {
		t.Fatal(err)
	}
	plies := resp.GetPlies()
	if len(plies) == 0 {
		t.Fatal("no legal ply")
	}
	return plies[(n*7919)%len(plies)].GetNotation()
}

// watch follows a match as a spectator from its start to its end,
// printing each ply with the board and the outcome.
func TestWatch(t *testing.T) {
	t.Parallel()
	c, me, ctx := startLocal(t)
	resp, err := c.Lobby.PlayBot(me.Context(ctx), &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_BANQI, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_FIRST})
	if err != nil {
		t.Fatal(err)
	}
	addr := c.Target()
	var out, errOut syncBuffer
	done := make(chan int)
	vars := localVars(t)
	go func() {
		done <- run(t.Context(), []string{"watch", "--server", addr, resp.GetMatchId()},
			func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errOut)
	}()
	deadline := time.After(time.Until(testenv.Deadline(t)))
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for !strings.Contains(out.String(), "watching") { // the snapshot: then play
		select {
		case <-deadline:
			t.Fatalf("watch printed no snapshot: %q %q", out.String(), errOut.String())
		case <-poll.C:
		}
	}
	// A whole game (the opponent is the easy bot); under -short, eight
	// plies of it and a resignation.
	var choose autoplay.Chooser = autoplay.Random(5)
	if testing.Short() {
		choose = firstPlies{choose, 8}
	}
	res, err := autoplay.Seat(t.Context(), c, me, resp.GetMatchId(), choose)
	if err != nil {
		t.Fatal(err)
	}
	if testing.Short() { // no Banqi game ends in eight plies
		if _, err := c.Match.Resign(me.Context(t.Context()), &matchv1.ResignRequest{MatchId: resp.GetMatchId()}); err != nil {
			t.Fatal(err)
		}
	}
	if code := <-done; code != 0 {
		t.Fatalf("watch: exit %d, stderr %s", code, errOut.String())
	}
	if testing.Short() {
		m, err := c.Match.GetMatch(me.Context(t.Context()), &matchv1.GetMatchRequest{MatchId: resp.GetMatchId()})
		if err != nil {
			t.Fatal(err)
		}
		res.Outcome = m.GetMatch().GetOutcome()
	}
	want := "outcome: " + outcomeText(nil, engine.Banqi, res.Outcome) + "\n"
	if !strings.HasSuffix(out.String(), want) || !strings.Contains(out.String(), "\nply 1: ") {
		t.Errorf("watch printed:\n%s\nwant every ply and, last, %q", out.String(), want)
	}
}

// firstPlies plays as its chooser does for its first n plies of the game,
// then ends (autoplay.ErrRecordEnded).
type firstPlies struct {
	autoplay.Chooser
	n int32
}

func (f firstPlies) Choose(view *gamev1.GameView, legal []*matchv1.LegalPly) (string, error) {
	if view.GetPlyCount() >= f.n {
		return "", autoplay.ErrRecordEnded
	}
	return f.Chooser.Choose(view, legal)
}

// watch stops, with no error, on a line "q".
func TestWatchStopsOnQ(t *testing.T) {
	t.Parallel()
	c, me, ctx := startLocal(t)
	resp, err := c.Lobby.PlayBot(me.Context(ctx), &lobbyv1.PlayBotRequest{Game: gamev1.Game_GAME_QUORIDOR, Variant: "standard", Level: gamev1.BotLevel_BOT_LEVEL_EASY, Seat: gamev1.Seat_SEAT_FIRST})
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut syncBuffer
	in, keys := io.Pipe()
	done := make(chan int)
	vars := localVars(t)
	go func() {
		done <- run(t.Context(), []string{"watch", "--server", c.Target(), resp.GetMatchId()},
			func(k string) string { return vars[k] }, in, &out, &errOut)
	}()
	deadline := time.After(time.Until(testenv.Deadline(t)))
	poll := time.NewTicker(5 * time.Millisecond)
	defer poll.Stop()
	for !strings.Contains(out.String(), "watching (q and Enter, or Ctrl-C, stops)") {
		select {
		case <-deadline:
			t.Fatalf("watch printed no snapshot: %q %q", out.String(), errOut.String())
		case <-poll.C:
		}
	}
	if _, err := io.WriteString(keys, "q\n"); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 || !strings.HasSuffix(out.String(), "stopped watching "+resp.GetMatchId()+"\n") || errOut.String() != "" {
		t.Fatalf("watch after q: exit %d\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	}
}
