package login

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/pkg/platform/testenv"
)

// screen is what the terminal shows (echoed input included).
type screen struct {
	mu  sync.Mutex
	out bytes.Buffer
}

func (s *screen) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.out.String() }

func (s *screen) waitFor(t *testing.T, want string) {
	t.Helper()
	deadline := testenv.Deadline(t)
	for !strings.Contains(s.String(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal never showed %q; it showed %q", want, s.String())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// The password fallback at a terminal: `tabuleiro login --password` asks
// for the username (echoed as typed) and the password, which the terminal
// does not echo, and keeps the account's identity. The test types into a
// pseudo-terminal as a person does, and reads what it shows.
func TestLoginPasswordAtATerminal(t *testing.T) {
	t.Parallel()
	addr, _, me := server(t)
	ptmx, tty := clitest.PTY(t)
	sc := &screen{}
	go func() {
		buf := make([]byte, 1024)
		for {
			n, err := ptmx.Read(buf)
			sc.mu.Lock()
			sc.out.Write(buf[:n])
			sc.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	data := t.TempDir()
	vars := map[string]string{"TABULEIRO_DATA_DIR": data, "USER": "tester"}
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Run(t.Context(), []string{"login", "--server", addr, "--password"}, func(k string) string { return vars[k] },
			tty, tty, &errOut, New)
	}()
	sc.waitFor(t, "Username: ")
	if _, err := ptmx.WriteString("ana_term\r"); err != nil {
		t.Fatal(err)
	}
	sc.waitFor(t, "Password: ")
	if _, err := ptmx.WriteString("a long password\r"); err != nil {
		t.Fatal(err)
	}
	if code := <-done; code != 0 {
		t.Fatalf("login: exit %d, screen %q, stderr %q", code, sc.String(), errOut.String())
	}
	sc.waitFor(t, "Signed in as ana_term (Ana)")
	shown := sc.String()
	if !strings.Contains(shown, "Username: ana_term") {
		t.Errorf("the username was not echoed: %q", shown)
	}
	if strings.Contains(shown, "a long password") {
		t.Errorf("the password was echoed: %q", shown)
	}
	if p := kept(t, data, addr); p.ID != me.ID || p.Username != "ana_term" {
		t.Fatalf("kept identity %+v; want the account %s", p, me.ID)
	}
}
