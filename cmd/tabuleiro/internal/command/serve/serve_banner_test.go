package serve

import (
	"context"
	"maps"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/pkg/platform/testenv"
)

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
			out, errOut := serveOneCall(t, tc.args, map[string]string{"TABULEIRO_ACCESS_LOG": tc.env})
			for _, want := range []string{"lobby, match and bot serving on 127.0.0.1:", "embedded Redis", "games in progress persist", "PostgreSQL at", "web:        ", "http://localhost:", "logs:       "} {
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

// The banner speaks the player's language, fits an 80-column terminal
// (what a pipe counts as), and names the stores and the logs.
func TestServeBannerInThePlayersLanguage(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		lang    string
		want    []string
		english []string
	}{
		{"pt-BR", []string{"servindo em 127.0.0.1:", "estado ao vivo: ", "abra http://localhost:", "resultados: ", "avisos e erros"},
			[]string{"serving on", "live state", "open http", "warnings and errors", "token key"}},
		{"es", []string{"sirviendo en 127.0.0.1:", "estado en vivo: ", "abre http://localhost:", "registros: ", "avisos y errores"},
			[]string{"serving on", "live state", "open http", "warnings and errors", "token key"}},
	} {
		t.Run(tc.lang, func(t *testing.T) {
			t.Parallel()
			out, _ := serveOneCall(t, nil, map[string]string{"TABULEIRO_LANG": tc.lang})
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("banner lacks %q:\n%s", want, out)
				}
			}
			for _, en := range tc.english {
				if strings.Contains(out, en) {
					t.Errorf("banner says %q in English:\n%s", en, out)
				}
			}
			for _, line := range strings.Split(out, "\n") {
				if n := utf8.RuneCountInString(line); n > 80 {
					t.Errorf("a line of %d columns: %q", n, line)
				}
			}
		})
	}
}

// bannerAddr finds the address in the banner's first line, and that the
// banner is whole (its logs line, the last, is there: the lobby, match and
// bot lines name no "stderr").
var bannerAddr = regexp.MustCompile(`(?s)^tabuleiro: [^\n]* (127\.0\.0\.1:\d+)\n.*stderr`)

// serveOneCall runs serve (with extra args and the variables env),
// signs a guest in through it, interrupts it, and returns what it wrote.
func serveOneCall(t *testing.T, extra []string, env map[string]string) (stdout, stderr string) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var out, errOut clitest.SyncBuffer
	vars := clitest.LocalVars(t)
	maps.Copy(vars, env)
	done := make(chan int)
	dsn := testenv.PostgresDSN(t) // here: a test fails only in its own goroutine
	go func() {
		done <- tab.Main(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--database-url", dsn}, extra...),
			func(k string) string { return vars[k] }, strings.NewReader(""), &out, &errOut)
	}()
	deadline := time.After(time.Until(testenv.Deadline(t)))
	poll := time.NewTicker(10 * time.Millisecond)
	defer poll.Stop()
	for !bannerAddr.MatchString(out.String()) || !strings.HasSuffix(out.String(), "\n") {
		select {
		case <-deadline:
			t.Fatalf("no banner; stdout %q stderr %q", out.String(), errOut.String())
		case <-poll.C:
		}
	}
	addr := bannerAddr.FindStringSubmatch(out.String())[1]
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

// An address another server holds is refused in the player's language,
// with the way to reach that server.
func TestServeAddressInUse(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	vars := clitest.LocalVars(t)
	vars["TABULEIRO_LANG"] = "pt-BR"
	code, _, errOut := tab.Run(t, vars, "serve", "--addr", l.Addr().String())
	if want := l.Addr().String() + " está em uso: outro servidor roda ali; fale com ele com --server " + l.Addr().String(); code != 1 || !strings.Contains(errOut, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, errOut, want)
	}
}
