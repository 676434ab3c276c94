package records

import (
	"io"
	"regexp"
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/boardtext"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	"tabuleiro.dev/pkg/engine"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
)

// playBoard plays plies from the start and prints the final board as
// replay does.
func playBoard(out io.Writer, p *text.Printer, g engine.Game, variant, layout string, plies []string, flip bool) error {
	pos, err := finalPosition(g, variant, layout, plies)
	if err != nil {
		return err
	}
	boardtext.Final(out, p, pos, flip)
	return nil
}

// The engines' facts under a replayed board (walls left, Banqi's colours,
// captured and face-down pieces, plies, Corners' move) are said in the
// player's language, not the engine's English.
func TestReplayBoardInPlayersLanguage(t *testing.T) {
	t.Parallel()
	const layout = "pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP"
	english := regexp.MustCompile(`walls left|white|black|true position|colours|captured|face down|plies:|quiet plies|revealed|game over|leave home|last ply|none`)
	for _, c := range []struct {
		lang  string
		game  engine.Game
		plies []string
		want  []string
	}{
		{"pt-BR", engine.Quoridor, []string{"e2", "e8", "e3h"}, []string{"muros restantes: brancas 9, pretas 10"}},
		{"es", engine.Quoridor, []string{"e2", "e8", "e3h"}, []string{"muros restantes: blancas 9, negras 10"}},
		{"pt-BR", engine.Banqi, []string{"a1", "a2"}, []string{"posição real (peças viradas para baixo entre colchetes)",
			"cores: o primeiro lugar é preto, o segundo é vermelho", "capturadas: nenhuma", "viradas para baixo: vermelho ",
			"lances: 2, último: a2 revelou um soldado preto", "lances sem captura nem revelação: 0 de "}},
		{"es", engine.Banqi, []string{"a1", "a2"}, []string{"posición real", "colores: el primer puesto es", "capturadas: ninguna",
			"boca abajo: rojo ", "jugadas: 2, última: a2 reveló un soldado negro"}},
		{"pt-BR", engine.Corners, []string{"c3-c4", "f6-f5"}, []string{"partida encerrada na rodada 2 (", "último lance f6-f5"}},
		{"es", engine.Corners, []string{"c3-c4", "f6-f5"}, []string{"partida terminada en la ronda 2 (", "última jugada f6-f5"}},
	} {
		variant, l := "standard", ""
		switch c.game {
		case engine.Corners:
			variant = "classic-3x3"
		case engine.Banqi:
			l = layout
		}
		var out strings.Builder
		if err := playBoard(&out, text.Catalog.Printer(c.lang), c.game, variant, l, c.plies, false); err != nil {
			t.Fatal(err)
		}
		s := out.String()
		for _, w := range c.want {
			if !strings.Contains(s, w) {
				t.Errorf("%s %s board lacks %q:\n%s", c.lang, c.game, w, s)
			}
		}
		if m := english.FindString(s); m != "" {
			t.Errorf("%s %s board says %q in English:\n%s", c.lang, c.game, m, s)
		}
	}
}

// A replayed Banqi game names its seats by the colours the first reveal
// gave them, as the game did ("Vermelho vence"), not first and second.
func TestReplayBanqiSeatsByColour(t *testing.T) {
	t.Parallel()
	pt := text.Catalog.Printer("pt-BR")
	pos, err := finalPosition(engine.Banqi, "standard", "pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP", []string{"a1"})
	if err != nil {
		t.Fatal(err)
	}
	won := &gamev1.Outcome{Result: gamev1.Result_RESULT_WIN, Winner: gamev1.Seat_SEAT_FIRST, Reason: gamev1.Reason_REASON_RESIGNATION}
	first, second := finalSeat(pt, engine.Banqi, pos, gamev1.Seat_SEAT_FIRST), finalSeat(pt, engine.Banqi, pos, gamev1.Seat_SEAT_SECOND)
	if first == "primeiro" || second == "segundo" || first == second {
		t.Errorf("seats after a reveal: %q, %q; want their colours", first, second)
	}
	if got := finalOutcome(pt, engine.Banqi, pos, won); strings.HasPrefix(got, "primeiro") || !strings.Contains(got, "por desistência") {
		t.Errorf("outcome %q", got)
	}
	start, _ := finalPosition(engine.Banqi, "standard", "pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP", nil)
	if got := finalSeat(pt, engine.Banqi, start, gamev1.Seat_SEAT_FIRST); got != "primeiro" {
		t.Errorf("before any reveal: %q, want primeiro", got)
	}
}

// replay of something neither a file nor a match id says so in the
// player's language, not the system's "no such file or directory".
func TestReplayMissingInPortuguese(t *testing.T) {
	t.Parallel()
	vars := clitest.LocalVars(t)
	vars["LANG"] = "pt_BR.UTF-8"
	code, out, errOut := tab.Run(t, vars, "replay", "BADID")
	if code != 2 || out != "" || !strings.Contains(errOut, "não há arquivo de registro nem partida terminada") || strings.Contains(errOut, "no such") {
		t.Errorf("replay BADID: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	// The use line's "[flags]" (cobra's own word) is the language's too.
	code, out, _ = tab.Run(t, vars, "replay", "--help")
	if code != 0 || !strings.Contains(out, "FILE|MATCH [opções]") || strings.Contains(out, "[flags]") {
		t.Errorf("replay --help in Portuguese:\n%s", out)
	}
}

// A replayed board draws the pawns (Quoridor) and pieces (Corners) by the
// letters the game screen and watch use in the player's language, so B is
// white in Portuguese both in play and in replay; Banqi keeps B1's letters.
func TestReplayPawnLettersOfTheLanguage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ lang, white, black string }{
		{"en", "W", "B"}, {"pt-BR", "B", "P"}, {"es", "B", "N"},
	} {
		p := text.Catalog.Printer(tt.lang)
		var b strings.Builder
		if err := playBoard(&b, p, engine.Quoridor, "standard", "", []string{"e2"}, false); err != nil {
			t.Fatal(err)
		}
		rows := map[string]string{}
		for line := range strings.Lines(b.String()) {
			if f := strings.Fields(line); len(f) > 0 {
				rows[f[0]] = line
			}
		}
		if !strings.Contains(rows["2"], " "+tt.white+" ") || !strings.Contains(rows["9"], " "+tt.black+" ") {
			t.Errorf("%s: Quoridor rank 2 %q and rank 9 %q, want %s on e2 and %s on e9", tt.lang, rows["2"], rows["9"], tt.white, tt.black)
		}
		b.Reset()
		if err := playBoard(&b, p, engine.Corners, "classic-3x3", "", nil, false); err != nil {
			t.Fatal(err)
		}
		if out := b.String(); !strings.Contains(out, "["+tt.white+"]") || !strings.Contains(out, "["+tt.black+"]") || (tt.lang != "en" && strings.Contains(out, "W")) {
			t.Errorf("%s: Corners board\n%s\nwant [%s] and [%s]", tt.lang, out, tt.white, tt.black)
		}
	}
}
