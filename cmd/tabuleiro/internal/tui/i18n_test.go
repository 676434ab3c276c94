package tui

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/text"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	matchv1 "tabuleiro.dev/pkg/gen/tabuleiro/match/v1"
)

var pt = text.Catalog.Printer("pt-BR")

// word is a word of letters, for the English-word check.
var word = regexp.MustCompile(`\pL{3,}`)

// catalogWords are the lower-case words of a catalog's messages.
func catalogWords(t *testing.T, lang string) map[string]bool {
	t.Helper()
	raw, err := os.ReadFile("../text/locales/" + lang + ".json")
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	var add func(v any)
	add = func(v any) {
		switch v := v.(type) {
		case string:
			for _, w := range word.FindAllString(v, -1) {
				out[strings.ToLower(w)] = true
			}
		case map[string]any:
			for _, f := range v {
				add(f)
			}
		}
	}
	for _, v := range c {
		add(v)
	}
	return out
}

// englishWords are the words English messages use that Portuguese ones
// do not: on a Portuguese screen each is a message left untranslated.
func englishWords(t *testing.T) map[string]bool {
	en, ptw := catalogWords(t, "en"), catalogWords(t, "pt-BR")
	out := map[string]bool{}
	for w := range en {
		if !ptw[w] {
			out[w] = true
		}
	}
	// A variant's id ("standard") is an identifier, as notation is: the
	// title shows it as the server names the variant.
	delete(out, "standard")
	return out
}

// noEnglish fails when screen has a word only the English catalog uses.
func noEnglish(t *testing.T, what, screen string) {
	t.Helper()
	english := englishWords(t)
	for _, w := range word.FindAllString(screen, -1) {
		if english[strings.ToLower(w)] {
			t.Errorf("%s: English word %q on the Portuguese screen:\n%s", what, w, screen)
			return
		}
	}
}

func inPortuguese(d Deps) Deps {
	d.Printer = pt
	return d
}

// A whole Quoridor game in Portuguese: the screens during play, the help,
// a wall preview and the result speak Brazilian Portuguese.
func TestPortugueseQuoridorGame(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "d9", "c9", "b9", "a9", "a8", "a7", "a6")
	d := newDriver(t, New(inPortuguese(startOn(f))))
	d.waitText("Sua vez (branco)")
	noEnglish(t, "start", d.screen())
	d.key("?")
	d.waitText("gira o muro")
	noEnglish(t, "help", d.screen())
	d.key("?")
	d.key("w")
	d.waitText("muro e1h: pode ser colocado")
	noEnglish(t, "wall mode", d.screen())
	d.key("esc")
	for i := range 8 {
		rank := i + 2
		d.waitFor("destinations", func(s string) bool { return strings.Contains(s, "+") })
		d.key("up", "enter")
		if rank < 9 {
			d.waitFor("the opponent's reply", func(s string) bool {
				return strings.Contains(s, "Sua vez") && len(f.snapshot().GetPlies()) == 2*(i+1)
			})
			if i == 0 {
				noEnglish(t, "after a ply", d.screen())
			}
		}
	}
	d.waitText("Branco (você) vence por chegada ao objetivo")
	screen := d.screen()
	noEnglish(t, "result", screen)
	for _, want := range []string{"Jogar de novo?", "partida m1", "Lances"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
}

// A wall that cannot be placed: the screen says why in Portuguese, from
// the reason the match service's check carries.
func TestPortugueseRefusedWall(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t, "e8")
	d := newDriver(t, New(inPortuguese(startOn(f))))
	d.waitText("Sua vez")
	d.key("w", "enter")
	d.waitText("preto jogou e8")
	d.key("w")
	d.waitText("muro e2h: pode ser colocado")
	d.key("down")
	d.waitText("Lance ilegal e1h")
	// The reason is the check's ErrorInfo reason, in Portuguese.
	noEnglish(t, "refused wall", d.screen())
	d.key("enter")
	d.waitText("e1h não pode ser colocado: mova-o com as setas ou gire-o com r")
	d.key("esc", "q")
	d.waitText("s sai, qualquer outra tecla fica.")
	noEnglish(t, "quit question", d.screen())
}

func TestPortugueseOfferAndBanqi(t *testing.T) {
	t.Parallel()
	deps := inPortuguese(Deps{Resume: func(string) (*Table, error) { return nil, errNoMore }})
	deps.Active = []*lobbyv1.MatchSummary{
		{MatchId: "m1", Game: gamev1.Game_GAME_CORNERS, Variant: "classic-3x3", PlyCount: 1},
		{MatchId: "m2", Game: gamev1.Game_GAME_BANQI, Variant: "standard", PlyCount: 12},
	}
	m := New(deps)
	s := m.View()
	for _, want := range []string{"Você tem 2 partidas não terminadas", "1 lance", "12 lances"} {
		if !strings.Contains(s, want) {
			t.Errorf("offer lacks %q:\n%s", want, s)
		}
	}
	noEnglish(t, "offer", s)

	cells := make([]*gamev1.BanqiCell, 32)
	for i := range cells {
		cells[i] = &gamev1.BanqiCell{State: &gamev1.BanqiCell_FaceDown{FaceDown: &gamev1.BanqiFaceDown{}}}
	}
	view := &gamev1.GameView{
		Game: gamev1.Game_GAME_BANQI, Variant: "standard", ToMove: gamev1.Seat_SEAT_SECOND, PlyCount: 3,
		Board: &gamev1.GameView_Banqi{Banqi: &gamev1.BanqiBoard{
			Cells: cells, Captured: []gamev1.BanqiPiece{gamev1.BanqiPiece_BANQI_PIECE_RED_SOLDIER},
			FirstColor: gamev1.BanqiColor_BANQI_COLOR_RED,
		}},
	}
	b := New(Deps{Printer: pt})
	b.table = &Table{Seats: map[gamev1.Seat]Conn{gamev1.Seat_SEAT_SECOND: nil}}
	b.phase = phasePlaying
	b.snapshot(&matchv1.Match{View: view})
	s = b.View()
	for _, want := range []string{"Você joga com as pretas", "Capturadas por preto: P", "conselheiro", "canhão", "Sua vez (preto)"} {
		if !strings.Contains(s, want) {
			t.Errorf("banqi lacks %q:\n%s", want, s)
		}
	}
	noEnglish(t, "banqi", s)
}

// The rules screen (i) shows the rules in the player's language.
func TestPortugueseRulesScreen(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	d := newDriver(t, New(inPortuguese(startOn(f))))
	d.waitText("Sua vez")
	d.key("i")
	d.waitText("Tabuleiro e notação")
	if s := d.screen(); !strings.Contains(s, "i ou esc volta à partida") {
		t.Errorf("the rules screen's footer is not Portuguese:\n%s", s)
	}
}

// A ply the match service refuses with its reason and parameters is said
// in Portuguese, naming the ply and the rule once.
func TestPortugueseRefusalByReason(t *testing.T) {
	t.Parallel()
	f := newFakeMatch(t)
	d := newDriver(t, New(inPortuguese(startOn(f))))
	d.waitText("Sua vez")
	m := d.m.(Model)
	m.stream(streamMsg{gen: m.gen, seat: gamev1.Seat_SEAT_FIRST, conn: f, resp: &matchv1.PlayResponse{Message: &matchv1.PlayResponse_PlyRejected{
		PlyRejected: &matchv1.PlyRejected{Notation: "e1h", Reason: "illegal ply e1h: that wall is already on the board (Q3.2)", Rule: "Q3.2",
			ErrorReason: "ILLEGAL_PLY", ErrorMetadata: map[string]string{"ply": "e1h", "rule": "Q3.2", "detail": "wall_already_placed"}},
	}}})
	if !strings.Contains(m.status, "e1h") || !strings.Contains(m.status, "(Q3.2)") || strings.Count(m.status, "e1h") != 1 {
		t.Errorf("status %q: want the Portuguese reason naming e1h and Q3.2 once", m.status)
	}
	noEnglish(t, "refusal", m.status)
}

// A question in Portuguese names the language's yes key (s, for sim) and
// takes it; y, every language's yes, still answers too.
func TestPortugueseYesKey(t *testing.T) {
	t.Parallel()
	for _, yes := range []string{"s", "y"} {
		f := newFakeMatch(t)
		d := newDriver(t, New(inPortuguese(startOn(f))))
		d.waitText("Sua vez")
		d.key("R")
		d.waitText("Desistir? s confirma, qualquer outra tecla cancela")
		d.key(yes)
		d.waitText(text.T(pt, "status.resigned"))
	}
}

// The rules screen in Portuguese: a variant table's row says each column
// as "header: value" (not "sair de casa até sem prazo; bloqueio —"), and
// Banqi's seats before the first reveal have Portuguese names.
func TestPortugueseRulesWording(t *testing.T) {
	t.Parallel()
	corners, err := text.Rules(pt, "corners")
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(plainRules(corners, 200), "\n")
	if !strings.Contains(all, "training — casa das brancas: a1–c3; peças: 9, só as brancas; direções: ortogonais; sair de casa até: sem prazo\n") ||
		strings.Contains(all, "até sem prazo") || strings.Contains(all, "bloqueio —") {
		t.Errorf("corners rules, variants:\n%s", all)
	}
	banqi, err := text.Rules(pt, "banqi")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(banqi, "first") || !strings.Contains(banqi, "os lugares se chamam primeiro e segundo") {
		t.Errorf("banqi rules name the seats in English")
	}
}

// The board's letters: Quoridor's pawns and Corners' pieces by the
// initial of their colour in the language (B and P in Portuguese, where W
// and B would read "B = branco"; replay draws the same), Banqi's pieces by
// B1's letters KABRNCP in every language (the rules, replay and the web
// use them), each in the legend with its name in the player's language.
func TestBoardLettersOfTheLanguage(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ lang, white, black, advisor string }{
		{"en", "W", "B", "advisor"}, {"pt-BR", "B", "P", "conselheiro"}, {"es", "B", "N", "consejero"},
	} {
		m := New(Deps{Printer: text.Catalog.Printer(tt.lang)})
		if w, b := m.seatLetter(gamev1.Seat_SEAT_FIRST), m.seatLetter(gamev1.Seat_SEAT_SECOND); w != tt.white || b != tt.black {
			t.Errorf("%s: pawns %q and %q, want %q and %q", tt.lang, w, b, tt.white, tt.black)
		}
		var red, black string
		for p := gamev1.BanqiPiece_BANQI_PIECE_RED_GENERAL; p <= gamev1.BanqiPiece_BANQI_PIECE_RED_SOLDIER; p++ {
			red += m.pieceLetter(p)
			black += m.pieceLetter(p + gamev1.BanqiPiece_BANQI_PIECE_BLACK_GENERAL - gamev1.BanqiPiece_BANQI_PIECE_RED_GENERAL)
		}
		if red != "KABRNCP" || black != "kabrncp" {
			t.Errorf("%s: Banqi letters %q and %q, want B1's KABRNCP and kabrncp", tt.lang, red, black)
		}
		legend := strings.Join(m.banqiLegend(), "  ")
		if !strings.Contains(legend, "A "+tt.advisor) || !strings.Contains(legend, "K ") || !strings.Contains(legend, "P ") {
			t.Errorf("%s: legend %q does not name B1's letters in the language", tt.lang, legend)
		}
	}
}
