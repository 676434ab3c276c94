package login

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// server runs a one-process server on PostgreSQL whose device sign-ins
// poll every second, with an account (username ana_term, password
// "a long password") signed in on a client; it returns the server's
// address, the client and the account.
func server(t *testing.T) (string, *client.Client, client.Player) {
	t.Helper()
	srv := clitest.Serve(t, local.Options{DatabaseURL: testenv.PostgresDSN(t), DevicePoll: time.Millisecond})
	c := clitest.Dial(t, srv.Addr())
	me, err := c.SignIn(t.Context(), "Ana")
	if err != nil {
		t.Fatal(err)
	}
	claim, err := c.Lobby.ClaimAccount(me.Context(t.Context()), &lobbyv1.ClaimAccountRequest{Username: "ana_term", Password: "a long password"})
	if err != nil {
		t.Fatal(err)
	}
	me.Token, me.Username = claim.GetToken(), claim.GetUsername()
	return srv.Addr(), c, me
}

// kept reads the identity the terminal keeps for the server addr.
func kept(t *testing.T, dataDir, addr string) client.Player {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dataDir, "identities.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ids map[string]client.Player
	if err := json.Unmarshal(b, &ids); err != nil {
		t.Fatal(err)
	}
	return ids[addr]
}

var userCode = regexp.MustCompile(`code\s+([B-Z]{4}-[B-Z]{4})`)

// `tabuleiro login --server ADDR` shows a code and the page to enter it
// on and polls; the player approves the code from a signed-in client
// (lobby.v1 ApproveDeviceSignIn, as the web page calls it); the terminal
// then keeps the account's identity for that server, and its next
// command (stats) is the account.
func TestLoginApprovedByTheAccount(t *testing.T) {
	t.Parallel()
	addr, c, me := server(t)
	data := t.TempDir()
	vars := map[string]string{"TABULEIRO_DATA_DIR": data, "USER": "tester"}
	out := &clitest.SyncBuffer{}
	var errOut strings.Builder
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(t.Context(), []string{"login", "--server", addr}, func(k string) string { return vars[k] },
			strings.NewReader(""), out, &errOut, New)
	}()
	deadline := testenv.Deadline(t)
	var code string
	for code == "" {
		if m := userCode.FindStringSubmatch(out.String()); m != nil {
			code = m[1]
		} else if time.Now().After(deadline) {
			t.Fatalf("no code shown: %q", out.String())
		} else {
			time.Sleep(5 * time.Millisecond)
		}
	}
	// The server at 127.0.0.1: the page at localhost, the origin serve
	// names (the browser's session and passkeys are there).
	_, port, _ := net.SplitHostPort(addr)
	if !strings.Contains(out.String(), "http://localhost:"+port+"/#/device") || !strings.Contains(out.String(), "/#/device?code="+code) {
		t.Fatalf("the page to approve on is not shown: %q", out.String())
	}
	ok, err := c.Lobby.ApproveDeviceSignIn(me.Context(t.Context()), &lobbyv1.ApproveDeviceSignInRequest{UserCode: code})
	if err != nil || !strings.HasPrefix(ok.GetDevice(), "tabuleiro") {
		t.Fatalf("approve: %v, %v", ok, err)
	}
	if got := <-done; got != 0 {
		t.Fatalf("login: exit %d, stdout %q, stderr %q", got, out.String(), errOut.String())
	}
	if !strings.Contains(out.String(), "Signed in as ana_term (Ana)") {
		t.Errorf("stdout %q: want the account named", out.String())
	}
	p := kept(t, data, addr)
	if p.ID != me.ID || p.Username != "ana_term" || p.RefreshToken == "" {
		t.Fatalf("kept identity %+v; want the account %s", p, me.ID)
	}
	stats, err := c.Lobby.GetStats(p.Context(t.Context()), &lobbyv1.GetStatsRequest{})
	if err != nil || stats.GetPlayerId() != me.ID || stats.GetUsername() != "ana_term" {
		t.Fatalf("stats with the kept token: %v, %v", stats, err)
	}

	// A wrong password (piped in: no terminal) is refused in words and
	// keeps the identity as it was.
	var o, eo strings.Builder
	got := cli.Run(t.Context(), []string{"login", "--server", addr, "--password", "--username", "ana_term"}, func(k string) string { return vars[k] },
		strings.NewReader("not the password\n"), &o, &eo, New)
	stdout, stderr := o.String(), eo.String()
	if got != 1 || !strings.Contains(stderr, "Wrong username or password") || strings.Contains(stdout+stderr, "not the password") {
		t.Fatalf("a wrong password: exit %d, stdout %q, stderr %q", got, stdout, stderr)
	}
	if again := kept(t, data, addr); again.Token != p.Token {
		t.Fatalf("a failed login changed the kept identity")
	}
}

// login's messages are wrapped at spaces to the terminal's width (80
// columns when standard output is no terminal): the Spanish device
// message, longer than a line, is not cut mid-word by the terminal.
func TestLoginWrapsAtWords(t *testing.T) {
	t.Parallel()
	addr, _, _ := server(t)
	vars := map[string]string{"TABULEIRO_DATA_DIR": t.TempDir(), "USER": "tester"}
	out := &clitest.SyncBuffer{}
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(ctx, []string{"--lang", "es", "login", "--server", addr}, func(k string) string { return vars[k] },
			strings.NewReader(""), out, io.Discard, New)
	}()
	waiting := regexp.MustCompile(`(?s)introduce\s+el\s+código\s+[B-Z]{4}-[B-Z]{4}.*Esperando\s+tu\s+aprobación.*Ctrl-C\s+cancela`)
	deadline := testenv.Deadline(t)
	for !waiting.MatchString(out.String()) {
		if time.Now().After(deadline) {
			t.Fatalf("no device message: %q", out.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	<-done
	for l := range strings.Lines(out.String()) {
		if n := utf8.RuneCountInString(strings.TrimSuffix(l, "\n")); n > 80 {
			t.Errorf("a line of %d columns: %q", n, l)
		}
	}
}

// A loopback IP in the device page's address is named localhost; other
// hosts stay as they are.
func TestLoopbackName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://127.0.0.1:7070/#/device":        "http://localhost:7070/#/device",
		"http://[::1]:7070/#/device?code=AB-CD": "http://localhost:7070/#/device?code=AB-CD",
		"https://play.example.com/#/device":     "https://play.example.com/#/device",
		"http://192.168.1.5:7070/#/device":      "http://192.168.1.5:7070/#/device",
	} {
		if got := loopbackName(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
