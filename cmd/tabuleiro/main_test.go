package main

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/text"
)

// run runs one command line in lang with a fresh data directory.
func run(t *testing.T, lang string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	vars := map[string]string{"TABULEIRO_LANG": lang, "TABULEIRO_DATA_DIR": t.TempDir()}
	var out, errOut strings.Builder
	code = cli.Run(context.Background(), args, func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errOut, commands()...)
	return code, out.String(), errOut.String()
}

// Every command's help, in every language, fits an 80-column terminal
// (what help is wrapped to when it goes to no terminal).
func TestHelpFits80Columns(t *testing.T) {
	t.Parallel()
	var paths [][]string
	var walk func(c *cobra.Command, path []string)
	walk = func(c *cobra.Command, path []string) {
		paths = append(paths, path)
		for _, sub := range c.Commands() {
			if !sub.Hidden {
				walk(sub, append(append([]string{}, path...), sub.Name()))
			}
		}
	}
	walk(cli.NewRoot(&cli.Env{P: text.English}, commands()...), nil)
	if len(paths) < 15 {
		t.Fatalf("%d commands found", len(paths))
	}
	for _, lang := range text.Catalog.Languages() {
		for _, path := range paths {
			code, out, errOut := run(t, lang, append(path, "--help")...)
			if code != 0 || out == "" {
				t.Errorf("%s: tabuleiro %s --help: exit %d, stderr %q", lang, strings.Join(path, " "), code, errOut)
			}
			for _, line := range strings.Split(out, "\n") {
				if n := utf8.RuneCountInString(line); n > 80 {
					t.Errorf("%s: tabuleiro %s --help: a line of %d columns: %q", lang, strings.Join(path, " "), n, line)
				}
			}
		}
	}
}

// A command line the commands refuse (an unknown command or option, an
// option without its value, too many arguments) is refused in the
// player's language, with exit status 2.
func TestUsageErrorsInThePlayersLanguage(t *testing.T) {
	t.Parallel()
	english := []string{"required flag", "bad tournament config", "unknown level", "unknown command", "unknown flag", "unknown shorthand", "flag needs", "invalid argument", "accepts", "arg(s)", "Did you mean", "Unknown help topic", "unknown unit"}
	for _, tc := range []struct {
		args []string
		pt   string
		es   string
	}{
		{[]string{"jogar"}, `comando desconhecido "jogar"; ` + "`tabuleiro --help`", `comando desconocido "jogar"`},
		{[]string{"histroy"}, "você quis dizer history?", "¿quisiste decir history?"},
		{[]string{"play", "--bogus"}, "opção desconhecida --bogus; `tabuleiro play --help`", "opción desconocida --bogus"},
		{[]string{"history", "-z"}, "opção desconhecida -z", "opción desconocida -z"},
		{[]string{"play", "--game"}, "--game precisa de um valor: quoridor, corners ou banqi", "--game necesita un valor"},
		{[]string{"serve", "extra"}, `tabuleiro serve não recebe argumentos, e foi dado "extra"`, "tabuleiro serve no recibe argumentos"},
		{[]string{"rules", "show", "a", "b", "c"}, "recebe no máximo 2 argumentos, e foram dados 3", "recibe como máximo 2 argumentos"},
		{[]string{"config", "lang", "pt", "es"}, "recebe no máximo 1 argumento, e foram dados 2", "recibe como máximo 1 argumento,"},
		{[]string{"rules", "show", "xadrez"}, `"xadrez" não é um jogo (quoridor, corners, banqi) nem uma seção`, `"xadrez" no es un juego`},
		{[]string{"play", "--variant", "nope"}, `Quoridor não tem a variante "nope" (use standard (Padrão), limit200`, `Quoridor no tiene la variante "nope"`},
		{[]string{"help", "bogus"}, `nenhum comando "bogus"; ` + "`tabuleiro --help`", `ningún comando "bogus"`},
		{[]string{"play", "--clock", "5x"}, `"5x" não é um relógio: relógio, "5m+3s"`, `"5x" no es un reloj`},
		{[]string{"play", "--room", "new", "--password", "abc"}, "--password: a senha de uma sala tem de 4 a 64 caracteres", "--password: la contraseña de una sala tiene de 4 a 64"},
		{[]string{"review", "NOPE"}, `review "NOPE": não há arquivo de registro nem partida terminada`, `review "NOPE": no hay archivo de registro`},
		{[]string{"rules", "play", "--file", "/nope"}, `--file "/nope": esse arquivo não existe`, `--file "/nope": ese archivo no existe`},
		{[]string{"bots", "ladder", "--game", "xadrez"}, `jogo desconhecido "xadrez" (use quoridor, corners ou banqi)`, `juego desconocido "xadrez"`},
		{[]string{"load"}, "falta --server: o endereço do lobby", "falta --server: la dirección del lobby"},
		{[]string{"bots", "--a", "easy"}, "diga os dois níveis que jogam com --a e --b (níveis: easy,", "indica los dos niveles que juegan con --a y --b"},
		{[]string{"bots", "--a", "facil", "--b", "easy"}, `--a "facil": esse nível não existe (níveis: easy,`, `--a "facil": ese nivel no existe`},
		{[]string{"bots", "ladder", "--levels", "easy,dificil"}, `--levels "dificil": esse nível não existe`, `--levels "dificil": ese nivel no existe`},
		{[]string{"rules", "show", "Q99"}, "as regras de Quoridor não têm a seção Q99", "las reglas de Quoridor no tienen la sección Q99"},
	} {
		for lang, want := range map[string]string{"pt-BR": tc.pt, "es": tc.es} {
			code, _, errOut := run(t, lang, tc.args...)
			if code != 2 || !strings.Contains(errOut, want) {
				t.Errorf("%s: tabuleiro %s: exit %d, stderr %q, want %q", lang, strings.Join(tc.args, " "), code, errOut, want)
			}
			for _, en := range english {
				if strings.Contains(errOut, en) {
					t.Errorf("%s: tabuleiro %s says %q in English: %q", lang, strings.Join(tc.args, " "), en, errOut)
				}
			}
		}
	}
}
