package play

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
)

// The kept identity stores the rotated refresh token of every refresh:
// each is good for one exchange, so keeping the spent one would lose the
// identity at the next refresh.
func TestIdentityKeepsTheRotatedRefreshToken(t *testing.T) {
	t.Parallel()
	c, _, _ := clitest.StartLocal(t)
	path := filepath.Join(t.TempDir(), "identities.json")
	read := func() client.Player {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		ids := map[string]client.Player{}
		if err := json.Unmarshal(b, &ids); err != nil {
			t.Fatal(err)
		}
		return ids["local"]
	}
	due := func() { // the kept token is about to expire: Identity refreshes
		t.Helper()
		p := read()
		p.ExpiresAt = time.Now()
		b, _ := json.Marshal(map[string]client.Player{"local": p})
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	first, err := c.Identity(t.Context(), path, "local", "Ana")
	if err != nil || first.RefreshToken == "" || read().RefreshToken != first.RefreshToken {
		t.Fatalf("first identity %+v, %v; want a kept refresh token", first, err)
	}
	seen := map[string]bool{first.RefreshToken: true}
	for i := range 2 {
		due()
		p, err := c.Identity(t.Context(), path, "local", "")
		if err != nil || p.ID != first.ID {
			t.Fatalf("refresh %d: %+v, %v; want the same player %s", i+1, p, err, first.ID)
		}
		kept := read()
		if seen[kept.RefreshToken] || kept.RefreshToken != p.RefreshToken || !kept.ExpiresAt.After(time.Now().Add(time.Hour)) {
			t.Fatalf("refresh %d kept %+v; want a new refresh token and a fresh token", i+1, kept)
		}
		seen[kept.RefreshToken] = true
	}
}

// history and stats without --server say that a server's games are kept
// there (and name --server); a first visit to a server makes a new
// identity there under the name already used offline, not $USER.
func TestIdentityNameAndServerHint(t *testing.T) {
	t.Parallel()
	vars := clitest.LocalVars(t)
	dir := vars["TABULEIRO_DATA_DIR"]
	code, out, errOut := tab.Run(t, vars, "play", "--auto", "--game", "corners", "--name", "Ana Lima", "--data-dir", dir)
	if code != 0 {
		t.Fatalf("play --auto: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	for _, cmd := range []string{"history", "stats"} {
		code, _, errOut := tab.Run(t, vars, cmd)
		if code != 0 || !strings.Contains(errOut, "tabuleiro "+cmd+" --server HOST:PORT") {
			t.Errorf("%s without --server: exit %d, stderr %q; want a hint naming --server", cmd, code, errOut)
		}
	}
	c, _, _ := clitest.StartLocal(t)
	code, out, errOut = tab.Run(t, vars, "stats", "--server", c.Target())
	if code != 0 || !strings.HasPrefix(out, "Ana Lima (") || strings.Contains(errOut, "--server HOST:PORT") {
		t.Errorf("stats --server: exit %d\nstdout:\n%s\nstderr:\n%s\nwant the offline name, Ana Lima, and no hint", code, out, errOut)
	}
}
