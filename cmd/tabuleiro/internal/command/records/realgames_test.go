package records

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/gameword"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/games"
	gamev1 "tabuleiro.dev/pkg/gen/tabuleiro/game/v1"
	"tabuleiro.dev/pkg/platform/testenv"
)

// The real game records replay through the match service, both seats
// driven by the command against a running server, and end as the rules
// engine says they end.
func TestReplayRealGames(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	srv := clitest.Serve(t, local.Options{DataDir: dir, DatabaseURL: testenv.PostgresDSN(t)})
	key, err := os.ReadFile(filepath.Join(dir, "token.key"))
	if err != nil {
		t.Fatal(err)
	}
	vars := map[string]string{"TABULEIRO_TOKEN_KEY": strings.TrimSpace(string(key)), "TABULEIRO_DATA_DIR": t.TempDir()}
	var files []string
	for _, g := range games.List() {
		m, _ := filepath.Glob(filepath.Join("..", "..", "..", "..", "..", "pkg", "engine", string(g), "testdata", "real-games", "*.txt"))
		files = append(files, m...)
	}
	if len(files) < 10 {
		t.Fatalf("found %d real game records, want at least 10", len(files))
	}
	if testing.Short() {
		// Two records of each game (the engine's own tests replay them
		// all; the test command's deep step replays them all here too).
		files = firstPerGame(files, 2)
	}
	for i, file := range files {
		g := engine.Game(strings.Split(filepath.Base(file), "-")[0])
		want, wantCode := engineOutcome(t, g, file)
		args := []string{"replay", "--server", srv.Addr(), file}
		if i%2 == 0 { // the others take the game from the record's header
			args = append(args, "--game", string(g))
		}
		code, out, errOut := tab.Run(t, vars, args...)
		if code != wantCode || !strings.Contains(out, "outcome: "+want+"\n") || strings.Count(out, "outcome:") != 1 {
			t.Errorf("%s: exit %d, want %d and the outcome %q once\nstdout:\n%s\nstderr:\n%s", file, code, wantCode, want, out, errOut)
		}
	}
	// --step shows the start and the board after every ply, then the
	// outcome once (standard input is no terminal: no waiting).
	code, out, errOut := tab.Run(t, vars, "replay", "--server", srv.Addr(), "--step", files[0])
	if code != 0 || !strings.HasPrefix(out, "start\n") || !strings.Contains(out, "\nply 1: ") || !strings.Contains(out, "\nply 2: ") ||
		strings.Count(out, "outcome:") != 1 {
		t.Errorf("replay --step %s: exit %d\nstdout:\n%.600s\nstderr:\n%s", files[0], code, out, errOut)
	}
	// A --game that contradicts the record's header is refused.
	code, _, errOut = tab.Run(t, vars, "replay", "--server", srv.Addr(), "--game", "corners", files[0])
	if code != 2 || !strings.Contains(errOut, "--game says corners") {
		t.Errorf("replay --game corners of %s: exit %d, stderr %q; want 2 and the disagreement named", files[0], code, errOut)
	}
}

// firstPerGame keeps the first n records of each game (the file name's
// first word).
func firstPerGame(files []string, n int) []string {
	seen := map[string]int{}
	var out []string
	for _, f := range files {
		g := strings.Split(filepath.Base(f), "-")[0]
		if seen[g] < n {
			seen[g]++
			out = append(out, f)
		}
	}
	return out
}

// engineOutcome replays a record with the rules engine alone, for the
// outcome the match service must reach, worded as the command words it;
// the exit status is 1 when the game ends before the record does.
func engineOutcome(t *testing.T, g engine.Game, file string) (string, int) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	rec, err := engine.ParseRecord(string(b))
	if err != nil {
		t.Fatal(err)
	}
	layout, _ := rec.Header("layout")
	pos, err := games.New(g, "", layout)
	if err != nil {
		t.Fatal(err)
	}
	code := 0
	for i, tok := range rec.Plies {
		if pos.Outcome().Over() {
			code = 1
			break
		}
		ply, err := pos.ParsePly(tok)
		if err != nil {
			t.Fatalf("%s ply %d: %v", file, i+1, err)
		}
		if pos, err = pos.Play(ply); err != nil {
			t.Fatalf("%s ply %d: %v", file, i+1, err)
		}
	}
	o := pos.Outcome()
	reason := strings.ReplaceAll(o.Reason.String(), "-", " ")
	switch o.Result {
	case engine.Win:
		seat := gamev1.Seat_SEAT_FIRST
		if o.Winner == engine.Second {
			seat = gamev1.Seat_SEAT_SECOND
		}
		return gameword.Seat(nil, g, seat) + " wins by " + reason, code
	case engine.Draw:
		return "draw by " + reason, code
	}
	return "ongoing", code
}
