package play

import (
	"bytes"
	"context"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/cmd/tabuleiro/internal/tui"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

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
	c, me, ctx := clitest.StartLocal(t)
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
		m := clitest.WaitTurn(t, c, me, id(), 2*(n+1))
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
		tm.Type(":" + clitest.SomePly(t, c, me, m, n))
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
	c, me, ctx := clitest.StartLocal(t)
	tm, id := botTUI(t, c, me, ctx, gamev1.Game_GAME_QUORIDOR, "standard")
	waitScreen(t, tm, "Your move (white)")
	tm.Type("w")
	waitScreen(t, tm, "wall e1h: can be placed")
	tm.Type("r")
	waitScreen(t, tm, "wall e1v: can be placed")
	tm.Type("r")
	tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	m := clitest.WaitTurn(t, c, me, id(), 2)
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
	afterTUI(&cli.Env{Stdout: &after}, final, "`tabuleiro play --resume --server h:1`", "")
	if want := "`tabuleiro play --resume --server h:1`"; !strings.Contains(after.String(), want) || !strings.Contains(after.String(), id()) {
		t.Errorf("after quitting the game: %q, want the match and %s", after.String(), want)
	}
	for line := range strings.Lines(after.String()) {
		if n := utf8.RuneCountInString(strings.TrimRight(line, "\n")); n > 80 {
			t.Errorf("after quitting the game, a line of %d columns (the terminal cuts it mid-word): %q", n, line)
		}
	}
}
