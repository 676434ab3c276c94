package login

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"
	"time"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql's "pgx"

	"tabuleiro.dev/cmd/tabuleiro/internal/cli"
	"tabuleiro.dev/cmd/tabuleiro/internal/client"
	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	lobbyv1 "tabuleiro.dev/pkg/gen/tabuleiro/lobby/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// `tabuleiro login` on a terminal that kept a guest with finished games
// for the server offers to bring them into the account: "y" (or the
// language's yes key, "s" in Portuguese) merges them (lobby.v1
// MergeGuest) and the account's history has them; any other answer
// leaves them with the guest. Either way the account replaces the guest
// in identities.json.
func TestLoginOffersToMergeTheKeptGuest(t *testing.T) {
	t.Parallel()
	dsn := testenv.PostgresDSN(t)
	addr := clitest.Serve(t, local.Options{DatabaseURL: dsn}).Addr()
	c := clitest.Dial(t, addr)
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	acct, err := c.SignIn(t.Context(), "Ana")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Lobby.ClaimAccount(acct.Context(t.Context()), &lobbyv1.ClaimAccountRequest{Username: "ana_merge", Password: "a long password"}); err != nil {
		t.Fatal(err)
	}
	accountGames := func() int {
		t.Helper()
		in, err := c.Lobby.SignIn(t.Context(), &lobbyv1.SignInRequest{Username: "ana_merge", Password: "a long password"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Lobby.ListGames(client.Player{Token: in.GetToken()}.Context(t.Context()), &lobbyv1.ListGamesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		return len(res.GetGames())
	}
	for i, run := range []struct {
		lang, answer, want string
		merged             bool
	}{
		{"C", "y", "1 game is now in your account.", true},
		{"pt_BR.UTF-8", "s", "1 partida agora está na sua conta.", true},
		{"C", "n", "The games of Guest 3 stay with that guest", false},
	} {
		// A guest this terminal keeps for the server, with a game it
		// finished against the bot.
		guest, err := c.SignIn(t.Context(), "Guest "+string(rune('1'+i)))
		if err != nil {
			t.Fatal(err)
		}
		data := t.TempDir()
		if err := client.Keep(filepath.Join(data, "identities.json"), addr, guest); err != nil {
			t.Fatal(err)
		}
		end := time.Now().Add(-time.Minute)
		if _, err := db.ExecContext(t.Context(), `INSERT INTO games (game_id, game, variant, rated, first_player_id, first_display_name,
			second_display_name, second_bot_level, plies, ply_clock_ms, ply_think_ms, ply_count, result, winner, reason, started_at, ended_at)
			VALUES ($1, 'quoridor', 'standard', false, $2, $3, 'Bot (easy)', 1, 'e2 e8', '- -', '100 100', 2, 'win', 'second', 'resignation', $4, $5)`,
			"g-login-"+guest.ID, guest.ID, guest.Name, end.Add(-time.Minute), end); err != nil {
			t.Fatal(err)
		}
		before := accountGames()
		vars := map[string]string{"TABULEIRO_DATA_DIR": data, "USER": "tester", "LANG": run.lang}
		var out, errOut strings.Builder
		got := cli.Run(t.Context(), []string{"login", "--server", addr, "--password", "--username", "ana_merge"}, func(k string) string { return vars[k] },
			strings.NewReader("a long password\n"+run.answer+"\n"), &out, &errOut, New)
		if got != 0 || !strings.Contains(out.String(), run.want) {
			t.Fatalf("%s, answering %q: exit %d, stdout %q, stderr %q; want %q", run.lang, run.answer, got, out.String(), errOut.String(), run.want)
		}
		if !strings.Contains(out.String(), guest.Name) {
			t.Errorf("the offer does not name the guest %s: %q", guest.Name, out.String())
		}
		if after := accountGames(); run.merged && after != before+1 || !run.merged && after != before {
			t.Errorf("%s, answering %q: the account has %d games, had %d", run.lang, run.answer, after, before)
		}
		if p := kept(t, data, addr); p.Username != "ana_merge" {
			t.Errorf("kept identity %+v; want the account", p)
		}
	}
}
