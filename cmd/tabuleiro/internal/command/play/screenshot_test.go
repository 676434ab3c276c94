package play

import (
	"fmt"
	"html"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/exp/teatest"
	"github.com/muesli/termenv"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// The game screen of a Quoridor game in progress against bot:easy, in
// colour as a 256-colour terminal shows it, written as an HTML page of
// coloured text (terminal.html) to $TABULEIRO_SCREENSHOT_DIR, or to a
// temporary directory: scripts/screenshots.sh renders it to
// docs/screenshots/terminal.png. Not parallel: it sets lipgloss's colour
// profile for the whole process while it runs (the parallel tests start
// after it).
func TestTerminalScreenshot(t *testing.T) {
	before := lipgloss.ColorProfile()
	lipgloss.SetColorProfile(termenv.TrueColor)
	defer lipgloss.SetColorProfile(before)
	c, me, ctx := clitest.StartLocal(t)
	tm, id := botTUI(t, c, me, ctx, gamev1.Game_GAME_QUORIDOR, "standard")
	waitScreen(t, tm, "Your move (white)")
	// Two pawn steps and two walls, each the first of its candidates
	// that is legal when its turn comes.
	for i, want := range [][]string{{"e2"}, {"e3"}, {"d6h", "e6h", "c6h", "f6h", "b6h"}, {"f3v", "d3v", "c3v", "g3v"}} {
		m := clitest.WaitTurn(t, c, me, id(), 2*i)
		legal, err := c.Match.ListLegalPlies(me.Context(t.Context()), &matchv1.ListLegalPliesRequest{MatchId: m.GetMatchId(), ExpectedPlyNumber: m.GetView().GetPlyCount() + 1})
		if err != nil {
			t.Fatal(err)
		}
		var ok []string
		for _, p := range legal.GetPlies() {
			ok = append(ok, p.GetNotation())
		}
		ply := ""
		for _, w := range want {
			if slices.Contains(ok, w) {
				ply = w
				break
			}
		}
		if ply == "" {
			t.Fatalf("none of %v is legal after %d plies", want, 2*i)
		}
		tm.Type(":" + ply)
		tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	}
	clitest.WaitTurn(t, c, me, id(), 8)
	waitScreen(t, tm, "Your move (white)")
	screen := *tm.last.Load()
	if !strings.Contains(screen, "\x1b[38;2;") {
		t.Fatalf("the screen has no colour:\n%s", screen)
	}
	page := ansiHTML(screen)
	dir := os.Getenv("TABULEIRO_SCREENSHOT_DIR")
	if dir == "" {
		dir = t.TempDir()
	}
	if err := os.WriteFile(filepath.Join(dir, "terminal.html"), []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	tm.Type("q")
	waitScreen(t, tm, "y quits")
	tm.Type("y")
	// The program has stopped drawing before the colour profile goes back.
	tm.FinalModel(t, teatest.WithFinalTimeout(time.Until(testenv.Deadline(t))))
}

// sgr matches a Select Graphic Rendition escape sequence.
var sgr = regexp.MustCompile(`\x1b\[([0-9;]*)m`)

// ansiHTML is screen (text with SGR colour sequences) as an HTML page
// that shows it as a dark terminal does.
func ansiHTML(screen string) string {
	var b strings.Builder
	b.WriteString(`<!doctype html><meta charset="utf-8"><style>` +
		`body{margin:0;background:#1d1f21}pre{margin:0;padding:16px 20px;color:#d0d0d0;background:#1d1f21;` +
		`font:15px/1.25 "DejaVu Sans Mono","Liberation Mono",monospace}span{white-space:pre}</style><pre>`)
	var fg, bg string
	var bold, faint, reverse bool
	open := false
	style := func() {
		if open {
			b.WriteString("</span>")
			open = false
		}
		f, k := fg, bg
		if reverse {
			f, k = cmpOr(bg, "#1d1f21"), cmpOr(fg, "#d0d0d0")
		}
		var css []string
		if f != "" {
			css = append(css, "color:"+f)
		}
		if k != "" {
			css = append(css, "background:"+k)
		}
		if bold {
			css = append(css, "font-weight:bold")
		}
		if faint {
			css = append(css, "opacity:.6")
		}
		if len(css) > 0 {
			b.WriteString(`<span style="` + strings.Join(css, ";") + `">`)
			open = true
		}
	}
	rest := screen
	for {
		loc := sgr.FindStringSubmatchIndex(rest)
		if loc == nil {
			b.WriteString(html.EscapeString(rest))
			break
		}
		b.WriteString(html.EscapeString(rest[:loc[0]]))
		codes := strings.Split(rest[loc[2]:loc[3]], ";")
		for i := 0; i < len(codes); i++ {
			n, _ := strconv.Atoi(codes[i])
			switch {
			case n == 0:
				fg, bg, bold, faint, reverse = "", "", false, false, false
			case n == 1:
				bold = true
			case n == 2:
				faint = true
			case n == 22:
				bold, faint = false, false
			case n == 7:
				reverse = true
			case n == 27:
				reverse = false
			case n == 39:
				fg = ""
			case n == 49:
				bg = ""
			case (n == 38 || n == 48) && i+4 < len(codes) && codes[i+1] == "2":
				r, _ := strconv.Atoi(codes[i+2])
				g, _ := strconv.Atoi(codes[i+3])
				bl, _ := strconv.Atoi(codes[i+4])
				col := fmt.Sprintf("#%02x%02x%02x", r, g, bl)
				if n == 38 {
					fg = col
				} else {
					bg = col
				}
				i += 4
			}
		}
		style()
		rest = rest[loc[1]:]
	}
	if open {
		b.WriteString("</span>")
	}
	b.WriteString("</pre>\n")
	return b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
