package text

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"google.golang.org/grpc/codes"

	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/pkg/platform/i18n"
	"tabuleiro.dev/pkg/platform/reason"
)

func TestCatalogsAgree(t *testing.T) {
	if p := Catalog.Problems(); len(p) > 0 {
		t.Errorf("the terminal's catalogs disagree:\n%s", strings.Join(p, "\n"))
	}
	if got := Catalog.Languages(); !slices.Equal(got, []string{"en", "es", "pt-BR"}) {
		t.Errorf("Languages() = %v", got)
	}
}

// A catalog file is a language: the embedding's glob takes any file, with
// no code naming it.
func TestAnotherFileIsAnotherLanguage(t *testing.T) {
	en, err := locales.ReadFile("locales/en.json")
	if err != nil {
		t.Fatal(err)
	}
	fsys := fstest.MapFS{"locales/en.json": {Data: en}}
	for _, f := range mustGlob(t) {
		b, _ := locales.ReadFile(f)
		fsys[f] = &fstest.MapFile{Data: b}
	}
	fsys["locales/fr.json"] = &fstest.MapFile{Data: []byte(strings.Replace(string(en), `"Starting the game…"`, `"La partie commence…"`, 1))}
	b, err := i18n.Load(fsys, "locales")
	if err != nil {
		t.Fatal(err)
	}
	if p := b.Problems(); len(p) > 0 {
		t.Errorf("problems: %q", p)
	}
	if got := b.Printer(b.Match("fr_FR.UTF-8")).T("starting", nil); got != "La partie commence…" {
		t.Errorf("fr: %q", got)
	}
}

func mustGlob(t *testing.T) []string {
	t.Helper()
	files, err := fs.Glob(locales, "locales/*.json")
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func TestChoose(t *testing.T) {
	tests := []struct {
		name  string
		flag  string
		env   map[string]string
		saved string
		want  string
	}{
		{name: "nothing is english", want: "en"},
		{name: "LANG=C is english", env: map[string]string{"LANG": "C"}, want: "en"},
		{name: "LANG=C.UTF-8 is english", env: map[string]string{"LANG": "C.UTF-8"}, want: "en"},
		{name: "LANG", env: map[string]string{"LANG": "pt_BR.UTF-8"}, want: "pt-BR"},
		{name: "LC_MESSAGES over LANG", env: map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "es_ES.UTF-8"}, want: "es"},
		{name: "LC_ALL over all", env: map[string]string{"LANG": "en_US.UTF-8", "LC_MESSAGES": "es_ES.UTF-8", "LC_ALL": "pt_PT"}, want: "pt-BR"},
		{name: "saved over locale", env: map[string]string{"LC_ALL": "pt_BR.UTF-8"}, saved: "es", want: "es"},
		{name: "env over saved", env: map[string]string{EnvLang: "en"}, saved: "es", want: "en"},
		{name: "flag over all", flag: "pt-BR", env: map[string]string{EnvLang: "en", "LC_ALL": "es"}, saved: "es", want: "pt-BR"},
		{name: "unserved locale is english", env: map[string]string{"LANG": "de_DE.UTF-8"}, want: "en"},
		{name: "a flag no catalog speaks gives way", flag: "xx", env: map[string]string{EnvLang: "pt-BR"}, want: "pt-BR"},
		{name: "so does such a variable", env: map[string]string{EnvLang: "br", "LANG": "es_AR.UTF-8"}, want: "es"},
		{name: "a regional flag is its language", flag: "es-ES", env: map[string]string{"LANG": "pt_BR.UTF-8"}, want: "es"},
		{name: "a flag of a language's region", flag: "pt-PT", env: map[string]string{"LANG": "es_ES.UTF-8"}, want: "pt-BR"},
		{name: "a french flag gives way", flag: "fr", env: map[string]string{"LANG": "pt_BR.UTF-8"}, want: "pt-BR"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Choose(tt.flag, func(k string) string { return tt.env[k] }, tt.saved); got != tt.want {
				t.Errorf("Choose = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestSaved(t *testing.T) {
	dir := t.TempDir()
	if Saved(dir) != "" {
		t.Error("a new directory has a language")
	}
	if err := Save(dir, "pt-BR"); err != nil {
		t.Fatal(err)
	}
	if got := Saved(dir); got != "pt-BR" {
		t.Errorf("Saved = %q", got)
	}
	if err := Save(dir, ""); err != nil || Saved(dir) != "" {
		t.Errorf("cleared: %v, %q", err, Saved(dir))
	}
}

func TestPluralsAndNumbers(t *testing.T) {
	pt, es, en := Catalog.Printer("pt-BR"), Catalog.Printer("es"), English
	for _, c := range []struct {
		p    *Printer
		n    int
		want string
	}{
		{en, 1, "1 ply"}, {en, 2, "2 plies"}, {en, 0, "0 plies"}, {en, 1234, "1,234 plies"},
		{pt, 1, "1 lance"}, {pt, 2, "2 lances"}, {pt, 1234, "1.234 lances"},
		{es, 1, "1 jugada"}, {es, 3, "3 jugadas"},
	} {
		if got := T(c.p, "plies", "count", c.n); got != c.want {
			t.Errorf("%s plies %d = %q, want %q", c.p.Lang(), c.n, got, c.want)
		}
	}
	if got := Decimal(pt, 9.46, 1); got != "9,5" {
		t.Errorf("Decimal pt = %q", got)
	}
	if got := Decimal(en, 9.46, 1); got != "9.5" {
		t.Errorf("Decimal en = %q", got)
	}
}

// A refusal that carries a reason the reason catalogs know is said in the
// player's language, wherever the status sits in the chain; one without
// keeps the server's words.
func TestErr(t *testing.T) {
	st := reason.Error(codes.ResourceExhausted, reason.RateLimited, "too many calls", map[string]string{"retry_seconds": "5"})
	err := fmt.Errorf("join room K7: %w", st)
	if got := Err(Catalog.Printer("pt-BR"), err); got != "join room K7: Muitas tentativas em pouco tempo: tente de novo em 5 s." {
		t.Errorf("pt: %q", got)
	}
	if got := Err(nil, err); !strings.Contains(got, "Too many attempts") || strings.Contains(got, "rpc error") {
		t.Errorf("en: %q", got)
	}
	plain := fmt.Errorf("join room K7: %w", errors.New("rpc error: code = NotFound desc = invite code: not found"))
	if got := Err(Catalog.Printer("pt-BR"), plain); got != "join room K7: invite code: not found" {
		t.Errorf("no reason: %q", got)
	}
}

// moduleRoot is cmd/tabuleiro, whose sources use the catalog.
func moduleRoot(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the package")
		}
		dir = up
	}
}

// userFacing are the module's directories (glob patterns) whose sources
// speak to the player: the commands and the game screen.
var userFacing = []string{".", "internal/cli", "internal/session", "internal/gameword", "internal/boardtext", "internal/command/*", "internal/tui", "internal/text", "internal/load"}

// sources parses the non-test Go files of the user-facing directories.
func sources(t *testing.T, root string) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	files := map[string]*ast.File{}
	for _, d := range userFacing {
		names, err := filepath.Glob(filepath.Join(root, d, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			if strings.HasSuffix(n, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(fset, n, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			rel, _ := filepath.Rel(root, n)
			files[filepath.ToSlash(rel)] = f
		}
	}
	return fset, files
}

// Every message of the catalog is used: its key is a string literal of
// the sources.
func TestNoUnusedKey(t *testing.T) {
	_, files := sources(t, moduleRoot(t))
	used := map[string]bool{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			if lit, ok := n.(*ast.BasicLit); ok && lit.Kind == token.STRING {
				if s, err := strconv.Unquote(lit.Value); err == nil {
					used[s] = true
				}
			}
			return true
		})
	}
	for _, k := range Catalog.Keys(i18n.Fallback) {
		if strings.HasPrefix(k, "variant.") {
			continue // "variant.<game>.<id>", built by Variant from the id
		}
		if !used[k] {
			t.Errorf("catalog key %q is used nowhere in the sources", k)
		}
	}
}

// prose is a literal that says something in words: two words of letters.
var prose = regexp.MustCompile(`\pL{2,}[ ']+\pL{2,}`)

// notYet are the files whose output is not yet from the catalog, each
// with why: the lint skips them.
var notYet = map[string]string{
	"internal/load/load.go":               "the load generator's progress line and errors, a developer's tool (its report, report.go, is from the catalog)",
	"internal/load/player.go":             "the load generator's simulated players' errors",
	"internal/load/cpu.go":                "the load generator's errors reading processor time and Redis",
	"internal/command/migrate/migrate.go": "an operator's command",
	"internal/command/serve/redis.go":     "an operator's command (embedded Redis)",
	"internal/command/rules/rules.go":     "its help is from the catalog; the checking tools (legal, replay, perft) print engine notation and boards",
}

// outputCalls are the calls whose string arguments reach the player.
var outputCalls = map[string]bool{
	"Fprint": true, "Fprintf": true, "Fprintln": true, "Sprintf": true, "Errorf": true, "New": true,
	"WriteString": true, "Render": true, "StringVar": true, "BoolVar": true, "IntVar": true,
	"Int32Var": true, "Int64Var": true, "Uint64Var": true, "DurationVar": true, "StringSliceVar": true,
}

// literalsReachingOutput returns the prose literals of f passed to an
// output call, assigned to a status or notice, or set as a command's
// Short or Long.
func literalsReachingOutput(fset *token.FileSet, f *ast.File) []string {
	var out []string
	check := func(e ast.Expr) {
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.CallExpr:
				if sel, ok := n.Fun.(*ast.SelectorExpr); ok && (sel.Sel.Name == "t" || sel.Sel.Name == "T" || sel.Sel.Name == "errorf" ||
					sel.Sel.Name == "Errorf" && !isIdent(sel.X, "fmt")) {
					return false // a catalog key and its parameters (cli.Env's T and Errorf)
				}
				if id, ok := n.Fun.(*ast.Ident); ok && id.Name == "T" {
					return false
				}
			case *ast.BasicLit:
				if n.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(n.Value)
				// A command line ("tabuleiro play --room …") is no prose.
				if err == nil && prose.MatchString(s) && !strings.HasPrefix(s, "tabuleiro ") {
					out = append(out, fmt.Sprintf("%s: %q", fset.Position(n.Pos()), s))
				}
			}
			return true
		})
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.CallExpr:
			if sel, ok := n.Fun.(*ast.SelectorExpr); ok && outputCalls[sel.Sel.Name] {
				for _, a := range n.Args {
					check(a)
				}
			}
		case *ast.AssignStmt:
			for i, l := range n.Lhs {
				if sel, ok := l.(*ast.SelectorExpr); ok && (sel.Sel.Name == "status" || sel.Sel.Name == "notice") && i < len(n.Rhs) {
					check(n.Rhs[i])
				}
			}
		case *ast.KeyValueExpr:
			if k, ok := n.Key.(*ast.Ident); ok && (k.Name == "Short" || k.Name == "Long") {
				check(n.Value)
			}
		}
		return true
	})
	return out
}

// isIdent reports whether e is the identifier name.
func isIdent(e ast.Expr, name string) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == name
}

// No prose literal of the commands or the game screen reaches the player
// without the catalog.
func TestNoProseOutsideTheCatalog(t *testing.T) {
	fset, files := sources(t, moduleRoot(t))
	for name, f := range files {
		if _, skip := notYet[name]; skip {
			continue
		}
		for _, l := range literalsReachingOutput(fset, f) {
			t.Errorf("prose not from the catalog: %s", l)
		}
	}
}

// The lint finds a literal planted where the player reads it.
func TestLintFindsPlantedProse(t *testing.T) {
	src := `package main
import ("fmt"; "errors")
type model struct{ status string }
func f(m *model, e *env) error {
	fmt.Fprintf(w, "queued; waiting for an opponent\n")
	m.status = "not your turn"
	fmt.Fprintln(w, e.t("queue.waiting"))
	return errors.New("the room closed")
}`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "planted.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	got := literalsReachingOutput(fset, f)
	if len(got) != 3 {
		t.Errorf("the lint found %d planted literals, want 3: %q", len(got), got)
	}
}

// A ply refused with its reason and parameters is said in the player's
// language; English keeps the server's words.
func TestReasonText(t *testing.T) {
	md := map[string]string{"ply": "e1h", "rule": "Q3.2", "detail": "wall_already_placed"}
	got, ok := ReasonText(Catalog.Printer("pt-BR"), "ILLEGAL_PLY", md)
	if !ok || !strings.Contains(got, "e1h") || !strings.Contains(got, "Q3.2") || !strings.Contains(got, "muro") {
		t.Errorf("pt: %q, %v", got, ok)
	}
	if _, ok := ReasonText(English, "ILLEGAL_PLY", md); ok {
		t.Error("English rendered the reason instead of keeping the server's words")
	}
	if _, ok := ReasonText(Catalog.Printer("es"), "", nil); ok {
		t.Error("no reason rendered")
	}
}

// An aborted game is no draw: it is said as a game that never counted.
func TestOutcomeOfAnAbortedGame(t *testing.T) {
	aborted := &gamev1.Outcome{Result: gamev1.Result_RESULT_DRAW, Reason: gamev1.Reason_REASON_ABORTED}
	agreed := &gamev1.Outcome{Result: gamev1.Result_RESULT_DRAW, Reason: gamev1.Reason_REASON_AGREEMENT}
	tests := []struct {
		lang string
		o    *gamev1.Outcome
		want string
	}{
		{lang: "pt-BR", o: aborted, want: "Partida anulada: sem resultado, não vale rating"},
		{lang: "es", o: aborted, want: "Partida anulada: sin resultado, no puntuable"},
		{lang: "en", o: aborted, want: "Game aborted: no result, not rated"},
		{lang: "en", o: agreed, want: "Draw by agreement"},
	}
	for _, tt := range tests {
		if got := Outcome(Catalog.Printer(tt.lang), tt.o, "", 0); got != tt.want {
			t.Errorf("%s: Outcome(%v) = %q, want %q", tt.lang, tt.o, got, tt.want)
		}
	}
}

// A bot is named by its level in the player's language (the server's
// display name of a bot is English); a person by their display name.
func TestPlayerName(t *testing.T) {
	bot := &gamev1.Participant{DisplayName: "Bot (hard)", BotLevel: gamev1.BotLevel_BOT_LEVEL_HARD}
	ana := &gamev1.Participant{DisplayName: "Ana", PlayerId: "p1"}
	tests := []struct {
		lang string
		who  *gamev1.Participant
		want string
	}{
		{lang: "pt-BR", who: bot, want: "Robô (difícil)"},
		{lang: "es", who: bot, want: "Bot (difícil)"},
		{lang: "en", who: bot, want: "Bot (hard)"},
		{lang: "pt-BR", who: ana, want: "Ana"},
	}
	for _, tt := range tests {
		if got := PlayerName(Catalog.Printer(tt.lang), tt.who); got != tt.want {
			t.Errorf("%s: PlayerName(%v) = %q, want %q", tt.lang, tt.who, got, tt.want)
		}
	}
}

// A ply that does not parse is said with its character counted from 1
// (the reason's offset is a byte from 0) and what a ply looks like.
func TestPlySyntaxCountsFromOne(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ lang, ply, offset, want string }{
		{"pt-BR", "zz9", "0", "O lance zz9 não pode ser lido: o caractere 1 (z)"},
		{"es", "i9h", "0", "el carácter 1 (i)"},
		{"en", "éx", "2", "character 2 (x)"},
		{"en", "e", "1", "ends too soon"},
	} {
		md := map[string]string{"ply": tt.ply, "offset": tt.offset}
		got, ok := ReasonText(Catalog.Printer(tt.lang), "PLY_SYNTAX", md)
		if !ok || !strings.Contains(got, tt.want) || !strings.Contains(got, "e3h") {
			t.Errorf("%s %s at %s: %q, want %q and the forms of a ply", tt.lang, tt.ply, tt.offset, got, tt.want)
		}
	}
	// A refusal that names its game gives that game's forms only.
	for _, tt := range []struct{ lang, game, want, not string }{
		{"pt-BR", "quoridor", "um muro (e3h, e3v)", "c3-e5"},
		{"pt-BR", "corners", "saltos (c3-e3-e5)", "e3h"},
		{"es", "banqi", "una captura (c2xc3)", "e3h"},
		{"en", "quoridor", "a wall (e3h, e3v)", "capture"},
	} {
		got, _ := ReasonText(Catalog.Printer(tt.lang), "PLY_SYNTAX", map[string]string{"ply": "zz", "offset": "0", "game": tt.game})
		if !strings.Contains(got, tt.want) || strings.Contains(got, tt.not) {
			t.Errorf("%s %s: %q, want %q and not %q", tt.lang, tt.game, got, tt.want, tt.not)
		}
	}
}

// The rules players read (the game's i screen, rules show) name no source
// path: where the engine lives is for developers (docs/development.md).
func TestRulesNameNoSourcePaths(t *testing.T) {
	t.Parallel()
	for _, lang := range []string{"en", "pt-BR", "es"} {
		for _, game := range []string{"quoridor", "corners", "banqi"} {
			doc, err := Rules(Catalog.Printer(lang), game)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Contains(doc, "pkg/") || strings.Contains(doc, "services/") {
				t.Errorf("%s %s rules name a source path", lang, game)
			}
		}
	}
}

// A deleted account's seat (the lobby names it "deleted player" in its
// finished games) reads in the player's language; a bot by its level; a
// person as named.
func TestDeletedPlayerName(t *testing.T) {
	deleted := &gamev1.Participant{PlayerId: "p_x", DisplayName: DeletedName}
	for lang, want := range map[string]string{"pt-BR": "jogador excluído", "es": "jugador eliminado", "en": "deleted player"} {
		if got := PlayerName(Catalog.Printer(lang), deleted); got != want {
			t.Errorf("%s: %q, want %q", lang, got, want)
		}
	}
	if got := PlayerName(Catalog.Printer("pt-BR"), &gamev1.Participant{DisplayName: "Deleted Player Fan"}); got != "Deleted Player Fan" {
		t.Errorf("a person's name: %q", got)
	}
}
