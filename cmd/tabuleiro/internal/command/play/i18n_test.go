package play

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/exp/teatest"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/cmd/tabuleiro/internal/tui"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// The language of the commands: the locale, --lang, TABULEIRO_LANG and
// the saved setting, in that order of strength (weakest first); LANG=C and
// no locale are English, as every other test runs.
func TestCommandLanguage(t *testing.T) {
	t.Parallel()
	vars := clitest.LocalVars(t)
	vars["LANG"] = "pt_BR.UTF-8"
	code, _, errOut := tab.Run(t, vars, "play", "--game", "chess")
	if want := "tabuleiro: jogo desconhecido chess (use quoridor, corners ou banqi)\n"; code != 2 || errOut != want {
		t.Errorf("LANG=pt_BR: exit %d, stderr %q; want 2, %q", code, errOut, want)
	}
	code, out, _ := tab.Run(t, vars, "play", "--help")
	for _, want := range []string{"Uso:", "Opções:", "Opções globais:", "Jogue uma partida no terminal", "ajuda de play", "--lang string",
		`(padrão: "bot:easy")`} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("play --help in Portuguese lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "(default ") {
		t.Errorf("play --help in Portuguese has an English default:\n%s", out)
	}
	// The root's help lists the players' commands, not cobra's shell
	// completion (its texts are English).
	if _, out, _ := tab.Run(t, vars, "--help"); strings.Contains(out, "completion") {
		t.Errorf("tabuleiro --help lists completion:\n%s", out)
	}
	_, _, errOut = tab.Run(t, vars, "--lang", "es", "play", "--game", "chess")
	if !strings.Contains(errOut, "juego desconocido chess") {
		t.Errorf("--lang es: %q", errOut)
	}
	vars["LANG"] = "C"
	_, _, errOut = tab.Run(t, vars, "play", "--game", "chess")
	if !strings.Contains(errOut, "unknown game chess") {
		t.Errorf("LANG=C: %q", errOut)
	}
	// config lang keeps the language in the data directory; the locale
	// then speaks it no more, TABULEIRO_LANG and --lang still do.
	code, out, errOut = tab.Run(t, vars, "config", "lang", "pt-BR")
	if code != 0 || out != "Idioma guardado: pt-BR\n" {
		t.Fatalf("config lang pt-BR: exit %d, %q, %q", code, out, errOut)
	}
	if b, err := os.ReadFile(filepath.Join(vars["TABULEIRO_DATA_DIR"], text.SettingFile)); err != nil || string(b) != "pt-BR\n" {
		t.Errorf("the setting file: %q, %v", b, err)
	}
	_, _, errOut = tab.Run(t, vars, "play", "--game", "chess")
	if !strings.Contains(errOut, "jogo desconhecido") {
		t.Errorf("saved pt-BR over LANG=C: %q", errOut)
	}
	vars[text.EnvLang] = "es"
	_, _, errOut = tab.Run(t, vars, "play", "--game", "chess")
	if !strings.Contains(errOut, "juego desconocido") {
		t.Errorf("TABULEIRO_LANG=es over the saved pt-BR: %q", errOut)
	}
	_, _, errOut = tab.Run(t, vars, "--lang=en", "play", "--game", "chess")
	if !strings.Contains(errOut, "unknown game") {
		t.Errorf("--lang=en over all: %q", errOut)
	}
	code, _, errOut = tab.Run(t, vars, "config", "lang", "de")
	if code != 2 || !strings.Contains(errOut, "pt-BR (Português (Brasil))") {
		t.Errorf("config lang de: exit %d, %q", code, errOut)
	}
	delete(vars, text.EnvLang)
	if code, out, _ := tab.Run(t, vars, "config", "lang", "auto"); code != 0 || !strings.Contains(out, "locale") {
		t.Errorf("config lang auto: %d %q", code, out)
	}
	_, _, errOut = tab.Run(t, vars, "play", "--game", "chess")
	if !strings.Contains(errOut, "unknown game") {
		t.Errorf("after auto, LANG=C: %q", errOut)
	}
}

// A whole game in Portuguese in the terminal client against the real
// services: Corners against bot:easy, typed in notation, to the result.
func TestTerminalGameInPortuguese(t *testing.T) {
	t.Parallel()
	c, me, ctx := clitest.StartLocal(t)
	pt := text.Catalog.Printer("pt-BR")
	tm, id := botTUIIn(t, pt, c, me, ctx, gamev1.Game_GAME_CORNERS, "classic-3x3")
	waitScreen(t, tm, "Sua vez (branco)")
	// The title is drawn with the first frame, which waitScreen has read:
	// it is on the last whole screen (easy, the base of the bots' ladder
	// ratings, named by its level alone, not "rating 0").
	testenv.Eventually(t, 5*time.Second, "the bot named in Portuguese in the title", func() bool {
		s := tm.last.Load()
		return s != nil && strings.Contains(*s, "contra Robô (fácil)") && !strings.Contains(*s, "rating 0")
	})
	for n := 0; ; n++ {
		m := clitest.WaitTurn(t, c, me, id(), 2*n)
		if m.GetStatus() == matchv1.MatchStatus_MATCH_STATUS_FINISHED {
			break
		}
		if n > 200 {
			t.Fatalf("no end after %d plies", n)
		}
		if n > 0 {
			waitScreen(t, tm, "preto jogou "+m.GetPlies()[len(m.GetPlies())-1].GetNotation())
		}
		tm.Type(":" + clitest.SomePly(t, c, me, m, n))
		tm.Send(tea.KeyMsg{Type: tea.KeyEnter})
	}
	waitScreen(t, tm, "Jogar de novo?")
	tm.Type("q")
	final := tm.FinalModel(t, teatest.WithFinalTimeout(time.Until(testenv.Deadline(t)))).(tui.Model)
	if r := final.Result(); !strings.Contains(r, " por ") {
		t.Errorf("result %q, want a win or a draw with its reason, in Portuguese", r)
	}
}

// The game's title names the bot with its level's ladder rating, but
// the level the scale is anchored at (easy, rated 0 with no interval) by
// its level alone, in every language, not "rating 0".
func TestBotTitleNamesTheAnchorByItsLevel(t *testing.T) {
	t.Parallel()
	easy := &gamev1.BotRating{Level: gamev1.BotLevel_BOT_LEVEL_EASY}
	hard := &gamev1.BotRating{Level: gamev1.BotLevel_BOT_LEVEL_HARD, Rating: 700, RatingLow: 640, RatingHigh: 760}
	near := &gamev1.BotRating{Level: gamev1.BotLevel_BOT_LEVEL_MEDIUM, Rating: 0, RatingLow: -40, RatingHigh: 40}
	tests := []struct {
		lang  string
		level gamev1.BotLevel
		r     *gamev1.BotRating
		want  string
	}{
		{"en", gamev1.BotLevel_BOT_LEVEL_EASY, easy, "vs Bot (easy)"},
		{"pt-BR", gamev1.BotLevel_BOT_LEVEL_EASY, easy, "contra Robô (fácil)"},
		{"es", gamev1.BotLevel_BOT_LEVEL_EASY, easy, "contra Bot (fácil)"},
		{"en", gamev1.BotLevel_BOT_LEVEL_HARD, hard, "vs Bot (hard · rating 700)"},
		{"pt-BR", gamev1.BotLevel_BOT_LEVEL_HARD, hard, "contra Robô (difícil · rating 700)"},
		// A level measured as strong as the anchor, with an interval, is rated.
		{"en", gamev1.BotLevel_BOT_LEVEL_MEDIUM, near, "vs Bot (medium · rating 0)"},
		{"en", gamev1.BotLevel_BOT_LEVEL_EASY, nil, "vs Bot (easy)"},
	}
	for _, tt := range tests {
		if got := botTitle(text.Catalog.Printer(tt.lang), tt.level, tt.r); got != tt.want {
			t.Errorf("%s: botTitle(%v, %v) = %q, want %q", tt.lang, tt.level, tt.r, got, tt.want)
		}
	}
}
