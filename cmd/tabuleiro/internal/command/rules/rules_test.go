package rules

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"
)

// banqiLayout is the layout of real game banqi-001 (testdata of package banqi).
const banqiLayout = "pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP"

func TestRulesLegalBanqiStart(t *testing.T) {
	t.Parallel()
	code, out, errOut := tab.RunIn(t, "", "rules", "legal", "--game", "banqi", "--layout", banqiLayout)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	lines := strings.Fields(out)
	if len(lines) != 32 || lines[0] != "a1" || lines[31] != "h4" {
		t.Errorf("got %d plies from %q to %q, want the 32 reveals a1..h4 (B3)", len(lines), lines[0], lines[len(lines)-1])
	}
}

func TestRulesPlayIllegalPly(t *testing.T) {
	t.Parallel()
	code, out, errOut := tab.RunIn(t, "", "rules", "play", "--game", "banqi", "--layout", banqiLayout, "--moves", "1. f3 f4 2. f3")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q", code, errOut)
	}
	for _, want := range []string{"ply 3 (f3)", "B3"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr %q does not name %q", errOut, want)
		}
	}
	if !strings.Contains(out, "ply 1: f3 reveals red horse") {
		t.Errorf("stdout %q does not report the revealed piece", out)
	}
}

func TestRulesPlayRecordFromStdin(t *testing.T) {
	t.Parallel()
	record := "# layout: " + banqiLayout + "\n1. f3 f4 2. g3 e4\n"
	code, out, errOut := tab.RunIn(t, record, "rules", "play", "--game", "banqi", "--file", "-")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if !strings.Contains(out, "outcome: ongoing") {
		t.Errorf("stdout does not give the outcome:\n%s", out)
	}
	if !strings.Contains(out, "As red sees it") || !strings.Contains(out, "As black sees it") {
		t.Errorf("stdout does not show each seat's view:\n%s", out)
	}
}

func TestRulesPerft(t *testing.T) {
	t.Parallel()
	code, out, errOut := tab.RunIn(t, "", "rules", "perft", "--game", "banqi", "--layout", banqiLayout, "--depth", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if strings.TrimSpace(out) != "992" {
		t.Errorf("perft(2) = %q, want 992 (32 reveals, then 31 reveals and at most one step)", out)
	}
}

func TestRulesBadInput(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		args     []string
		wantCode int
		wantErr  string
	}{
		{name: "unknown game", args: []string{"rules", "legal", "--game", "chess"}, wantCode: 2, wantErr: `unknown game "chess" (want quoridor, corners, banqi)`},
		{name: "unknown variant", args: []string{"rules", "legal", "--variant", "nope"}, wantCode: 2, wantErr: `Quoridor has no variant "nope" (want standard (Standard), limit200`},
		{name: "no layout", args: []string{"rules", "perft", "--game", "banqi"}, wantCode: 2, wantErr: "a Banqi record needs its layout"},
		{name: "bad layout", args: []string{"rules", "legal", "--game", "banqi", "--layout", "XYZ"}, wantCode: 2, wantErr: "unknown letter 'X' at a1"},
		{name: "garbage ply", args: []string{"rules", "play", "--game", "banqi", "--layout", banqiLayout, "--moves", "f3 zz9"}, wantCode: 1, wantErr: "ply 2 (zz9)"},
		{name: "both sources", args: []string{"rules", "legal", "--game", "banqi", "--moves", "f3", "--file", "x"}, wantCode: 2, wantErr: "not both"},
		{name: "negative depth", args: []string{"rules", "perft", "--game", "banqi", "--layout", banqiLayout, "--depth", "-1"}, wantCode: 2, wantErr: "--depth -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, _, errOut := tab.RunIn(t, "", tt.args...)
			if code != tt.wantCode || !strings.Contains(errOut, tt.wantErr) {
				t.Errorf("exit %d, stderr %q; want exit %d naming %q", code, errOut, tt.wantCode, tt.wantErr)
			}
		})
	}
}

func TestRulesQuoridor(t *testing.T) {
	t.Parallel()
	code, out, errOut := tab.RunIn(t, "", "rules", "legal", "--game", "quoridor")
	if code != 0 {
		t.Fatalf("legal: exit %d, stderr %q", code, errOut)
	}
	if n := len(strings.Fields(out)); n != 131 {
		t.Errorf("legal at the start: %d plies, want 131 (e2, d1, f1 and 128 walls)", n)
	}
	code, out, _ = tab.RunIn(t, "", "rules", "perft", "--game", "quoridor", "--depth", "2")
	if code != 0 || strings.TrimSpace(out) != "16677" {
		t.Errorf("perft 2: exit %d, output %q; want 16677", code, out)
	}
	code, out, _ = tab.RunIn(t, "", "rules", "play", "--game", "quoridor", "--moves", "1. e2 e8 2. e3")
	if code != 0 || !strings.Contains(out, "to move: black") || !strings.Contains(out, "walls left: white 10, black 10") {
		t.Errorf("play: exit %d, output:\n%s", code, out)
	}
	code, _, errOut = tab.RunIn(t, "", "rules", "play", "--game", "quoridor", "--moves", "1. e2 e8 2. e4")
	if code != 1 || !strings.Contains(errOut, "ply 3 (e4)") || !strings.Contains(errOut, "Q2") {
		t.Errorf("illegal jump: exit %d, stderr %q; want exit 1 naming ply 3 and rule Q2", code, errOut)
	}
}

func TestRulesCorners(t *testing.T) {
	t.Parallel()
	code, out, errOut := tab.RunIn(t, "", "rules", "legal", "--game", "corners", "--variant", "square-4x4")
	if code != 0 || len(strings.Fields(out)) != 16 {
		t.Errorf("legal square-4x4: exit %d, %d plies (stderr %q); want 16 (8 steps, 8 jumps)", code, len(strings.Fields(out)), errOut)
	}
	code, out, _ = tab.RunIn(t, "", "rules", "play", "--game", "corners", "--moves", "1. c3-d3 f6-e6 2. c1-e3")
	if code != 0 || !strings.Contains(out, "last ply c1-c3-e3") {
		t.Errorf("play with a shorthand chain: exit %d, output:\n%s\nwant the chain printed in full (C1)", code, out)
	}
	code, _, errOut = tab.RunIn(t, "", "rules", "play", "--game", "corners", "--moves", "1. c3-c5")
	if code != 1 || !strings.Contains(errOut, "ply 1 (c3-c5)") || !strings.Contains(errOut, "C3") {
		t.Errorf("jump over nothing: exit %d, stderr %q; want exit 1 naming ply 1 and rule C3", code, errOut)
	}
}

// rules show prints the repository's rules documents, whole or one
// section, the game following from the section's letter.
func TestRulesShow(t *testing.T) {
	t.Parallel()
	code, out, errOut := tab.RunIn(t, "", "rules", "show", "--game", "banqi")
	if strings.Contains(out, "<!--") {
		t.Errorf("rules show prints the document's HTML comments:\n%s", out)
	}
	if code != 0 || !strings.HasPrefix(out, "Banqi") || !strings.Contains(out, "B4.2 The cannon") {
		t.Fatalf("exit %d, stdout %.200q, stderr %q", code, out, errOut)
	}
	// The game and the section as arguments, as a refusal cites them.
	if code, out, errOut := tab.RunIn(t, "", "rules", "show", "Banqi"); code != 0 || !strings.HasPrefix(out, "Banqi") || !strings.Contains(out, "B4.2 The cannon") {
		t.Errorf("rules show Banqi: exit %d, stderr %q, stdout %.200q", code, errOut, out)
	}
	if code, out, errOut := tab.RunIn(t, "", "rules", "show", "Q3.2"); code != 0 || !strings.HasPrefix(out, "Q3.2") || strings.Contains(out, "Q4.") {
		t.Errorf("rules show Q3.2: exit %d, stderr %q, stdout %.300q", code, errOut, out)
	}
	code, out, _ = tab.RunIn(t, "", "rules", "show", "--section", "C3.2")
	if code != 0 || !strings.HasPrefix(out, "C3.2 Jump") || strings.Contains(out, "C3.3") {
		t.Fatalf("section C3.2: exit %d, %q", code, out)
	}
	if code, _, errOut := tab.RunIn(t, "", "rules", "show", "--game", "chess"); code != 2 || !strings.Contains(errOut, "quoridor") {
		t.Fatalf("unknown game: exit %d, stderr %q", code, errOut)
	}
}

// rules' help, its subcommands' and their flags', is in the player's
// language, as the other commands' is.
func TestRulesHelpTranslated(t *testing.T) {
	t.Parallel()
	tab.HelpTranslated(t)
}

// rules show renders the Markdown for the terminal, in every language:
// plain headings, lines of at most 80 columns (the width when standard
// output is no terminal), no emphasis, code, table or heading marks.
func TestRulesShowRendersMarkdown(t *testing.T) {
	t.Parallel()
	marks := regexp.MustCompile("\\*\\*|`|\\]\\(|^#|^\\s*\\|")
	for _, lang := range []string{"en", "pt-BR", "es"} {
		for _, game := range []string{"quoridor", "corners", "banqi"} {
			code, out, errOut := tab.RunIn(t, "", "--lang", lang, "rules", "show", game)
			if code != 0 {
				t.Fatalf("%s rules show %s: exit %d, stderr %q", lang, game, code, errOut)
			}
			for l := range strings.Lines(out) {
				l = strings.TrimSuffix(l, "\n")
				if w := utf8.RuneCountInString(l); w > 80 || marks.MatchString(l) {
					t.Errorf("%s rules show %s: a line of %d columns or with Markdown marks: %q", lang, game, w, l)
				}
			}
		}
	}
}

// rules play, perft and their refusals speak the player's language: the
// board's facts, a Banqi reveal, each seat's view, the outcome, a refused
// ply with its rule, perft's timing line.
func TestRulesPlayInThePlayersLanguage(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"TABULEIRO_LANG": "pt-BR", "TABULEIRO_DATA_DIR": t.TempDir()}
	record := "# layout: " + banqiLayout + "\n1. f3 f4 2. g3 e4\n"
	code, out, errOut := tab.RunIn(t, record, "rules", "play", "--game", "banqi", "--file", "-", "--lang", "pt-BR")
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, want := range []string{"lance 1: f3 revela cavalo vermelho", "Como vermelho vê:", "Como preto vê:"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	for _, en := range []string{"reveals", "to move:", "captured:", "face down:", "sees it", "outcome: ongoing", "colours:"} {
		if strings.Contains(out, en) {
			t.Errorf("stdout says %q in English:\n%s", en, out)
		}
	}
	if code, _, errOut := tab.Run(t, vars, "rules", "play", "--moves", "e2 e8 e9"); code != 1 || !strings.Contains(errOut, "lance 3 (e9): Lance ilegal e9") || !strings.Contains(errOut, "(Q2.1)") {
		t.Errorf("a refused ply: exit %d, stderr %q", code, errOut)
	}
	if code, _, errOut := tab.Run(t, vars, "rules", "perft", "--depth", "1"); code != 0 || !strings.Contains(errOut, "perft(1) = 131 em ") {
		t.Errorf("perft: exit %d, stderr %q", code, errOut)
	}
}

// TestRulesShowUnknownLanguage: --lang takes a regional tag as its
// language (es-ES is es), and one that no catalog speaks is passed over
// with a one-line warning on stderr, in the language used instead, that
// names the languages there are.
func TestRulesShowUnknownLanguage(t *testing.T) {
	t.Parallel()
	vars := map[string]string{"LANG": "pt_BR.UTF-8", "TABULEIRO_DATA_DIR": t.TempDir()}
	tests := []struct {
		lang      string
		wantOut   string // the section's title, in the language used
		wantError string // "" for no warning
	}{
		{lang: "es-ES", wantOut: "sin solaparse", wantError: ""},
		{lang: "xx", wantOut: "sem sobreposição", wantError: "aviso: nenhum catálogo fala xx"},
		{lang: "fr", wantOut: "sem sobreposição", wantError: "aviso: nenhum catálogo fala fr"},
	}
	for _, tt := range tests {
		code, out, errOut := tab.Run(t, vars, "rules", "show", "--section", "Q3.2", "--lang", tt.lang)
		if code != 0 || !strings.Contains(strings.ToLower(out), tt.wantOut) {
			t.Errorf("--lang %s: exit %d, stdout %q, stderr %q", tt.lang, code, out, errOut)
		}
		if tt.wantError == "" {
			if errOut != "" {
				t.Errorf("--lang %s: stderr %q, want nothing", tt.lang, errOut)
			}
			continue
		}
		if !strings.Contains(errOut, tt.wantError) || !strings.Contains(errOut, "es (Español)") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("--lang %s: stderr %q, want one line with %q naming the languages", tt.lang, errOut, tt.wantError)
		}
	}
}
