package records

import (
	"net"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/clitest"
	"tabuleiro.dev/cmd/tabuleiro/internal/local"
	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/platform/testenv"
)

// replay takes the id history prints: the finished game is shown from the
// record kept on this computer (players, final board, outcome), --step
// shows every ply, and an id nobody knows is refused in words, saying
// where the ids come from.
func TestReplayByHistoryID(t *testing.T) {
	t.Parallel()
	vars := clitest.LocalVars(t)
	if code, out, errOut := tab.Run(t, vars, "play", "--auto", "--game", "corners", "--data-dir", vars["TABULEIRO_DATA_DIR"]); code != 0 {
		t.Fatalf("play --auto: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// A finished game reaches history through the outbox, a moment later.
	var id string
	deadline := testenv.Deadline(t)
	for id == "" {
		code, out, errOut := tab.Run(t, vars, "history")
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code == 0 && len(lines) == 2 && strings.HasPrefix(lines[0], "ENDED") {
			f := strings.Fields(lines[1])
			id = f[len(f)-1]
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("history: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
		}
	}
	code, out, errOut := tab.Run(t, vars, "replay", id)
	// The result once (the outcome line), not the engine's own line too,
	// and nobody to move in a finished game.
	if code != 0 || !strings.HasPrefix(out, "Corners Classic 3×3: ") || !strings.Contains(out, " tester (you)") || !strings.Contains(out, " Bot (easy)") || strings.Count(out, "outcome: ") != 1 ||
		regexp.MustCompile(`(?m)^(white|black) wins \(|^game over: |^to move:`).MatchString(out) ||
		!strings.Contains(out, "outcome: white wins by") && !strings.Contains(out, "outcome: black wins by") && !strings.Contains(out, "outcome: draw by") {
		t.Fatalf("replay %s: exit %d\nstdout:\n%s\nstderr:\n%s", id, code, out, errOut)
	}
	// The board from the viewer's seat: a game played black is drawn as
	// black saw it (file h on the left), --flip turns it.
	black := strings.Contains(out, "black tester (you)")
	files := func(out string) string {
		for l := range strings.Lines(out) {
			if f := strings.Fields(l); len(f) == 8 && len(f[0]) == 1 {
				return f[0] + f[7]
			}
		}
		return ""
	}
	want, turned := "ah", "ha"
	if black {
		want, turned = "ha", "ah"
		if !strings.Contains(out, "(the board as black sees it, your seat; --flip turns it)\n") {
			t.Errorf("replay of a game played black does not say from which side:\n%s", out)
		}
	}
	if got := files(out); got != want {
		t.Errorf("replay (tester played black: %v): files from %q, want %q\n%s", black, got, want, out)
	}
	code, out, errOut = tab.Run(t, vars, "replay", "--flip", id)
	if got := files(out); code != 0 || got != turned {
		t.Errorf("replay --flip: exit %d, files from %q, want %q\n%s%s", code, got, turned, out, errOut)
	}
	code, out, errOut = tab.Run(t, vars, "replay", "--step", id)
	if code != 0 || !strings.Contains(out, "\nstart\n") || !strings.Contains(out, "\nply 1: ") || !strings.Contains(out, "\nply 2: ") ||
		strings.Count(out, "outcome: ") != 1 {
		t.Fatalf("replay --step %s: exit %d\nstdout:\n%.800s\nstderr:\n%s", id, code, out, errOut)
	}
	code, out, errOut = tab.Run(t, vars, "replay", "NOSUCHGAMEXXXXXXXXXXXXXXXX")
	if code != 1 || out != "" || !strings.Contains(errOut, "no finished game with that id on this computer") ||
		!strings.Contains(errOut, "tabuleiro history") || strings.Contains(errOut, "desc =") {
		t.Fatalf("replay of an unknown id: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// A path that is not there is still a missing file (exit 2), not an id.
	code, _, errOut = tab.Run(t, vars, "replay", "games/none.txt")
	if code != 2 || !strings.Contains(errOut, "no such record file nor finished game") {
		t.Fatalf("replay of a missing file: exit %d, stderr %q", code, errOut)
	}
	// A long argument is not echoed whole.
	long := strings.Repeat("x", 5000)
	code, _, errOut = tab.Run(t, vars, "replay", long)
	if code != 2 || len(errOut) > 400 || !strings.Contains(errOut, "(5000 characters)") || !strings.Contains(errOut, "tabuleiro history") {
		t.Fatalf("replay of a 5000-character argument: exit %d, stderr (%d bytes) %.300q", code, len(errOut), errOut)
	}
}

// watch (or any command) against an address where nothing listens says
// so in words, not with gRPC's transport error.
func TestWatchServerDown(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	code, _, errOut := tab.Run(t, clitest.LocalVars(t), "watch", "--server", addr, "m_x")
	if code != 1 || !strings.Contains(errOut, "cannot reach a Tabuleiro server at "+addr) ||
		strings.Contains(errOut, "transport") || strings.Contains(errOut, "desc =") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// history without --server, on a data directory another command holds (a
// `tabuleiro serve` there, say), cannot start its own server: it says so
// in a sentence, what happened first and then what to do, not as
// "start the local server: …".
func TestHistoryDataDirInUse(t *testing.T) {
	t.Parallel()
	vars := clitest.LocalVars(t)
	dir := vars["TABULEIRO_DATA_DIR"]
	clitest.Serve(t, local.Options{DataDir: dir})
	code, _, errOut := tab.Run(t, vars, "history")
	first := "tabuleiro: another tabuleiro command (process "
	if code != 1 || !strings.HasPrefix(errOut, first) {
		t.Fatalf("exit %d, stderr %q; want exit 1 and a refusal that starts %q", code, errOut, first)
	}
	// What happened, then what to do: the advice comes after the cause.
	happened := strings.Index(errOut, "is using the data directory "+dir)
	todo := strings.Index(errOut, "Quit it, reach it with --server ADDR")
	if happened < 0 || todo < happened || !strings.Contains(errOut, "--data-dir") || strings.Contains(errOut, "start the local server") {
		t.Errorf("refusal %q", errOut)
	}
	// In the player's language.
	vars["TABULEIRO_LANG"] = "pt-BR"
	code, _, errOut = tab.Run(t, vars, "history")
	if want := "tabuleiro: outro comando tabuleiro (processo " + strconv.Itoa(os.Getpid()) + ") está usando o diretório de dados " + dir; code != 1 || !strings.HasPrefix(errOut, want) || strings.Contains(errOut, "Quit it") {
		t.Errorf("in pt-BR: exit %d, stderr %q, want it to start %q", code, errOut, want)
	}
}

// finalBoard with flip draws the board as the second seat sees it.
func TestFinalBoardFlipped(t *testing.T) {
	t.Parallel()
	var plain, turned strings.Builder
	if err := playBoard(&plain, nil, engine.Quoridor, "standard", "", []string{"e2", "e8"}, false); err != nil {
		t.Fatal(err)
	}
	if err := playBoard(&turned, nil, engine.Quoridor, "standard", "", []string{"e2", "e8"}, true); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(plain.String(), "     a   b") || !strings.HasPrefix(turned.String(), "     i   h") ||
		!strings.Contains(turned.String(), "\n 1 | ") || strings.Index(turned.String(), " 1 | ") > strings.Index(turned.String(), " 9 | ") {
		t.Errorf("plain:\n%s\nturned:\n%s", plain.String(), turned.String())
	}
}

// finalBoard of a game ended off the board (resigned after two plies) says
// neither who is to move nor that it goes on, in every game.
func TestFinalBoardOfResignedGame(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		game            engine.Game
		variant, layout string
		plies           []string
	}{
		{engine.Quoridor, "standard", "", []string{"e2", "e8"}},
		{engine.Corners, "classic-3x3", "", []string{"c3-c4", "f6-f5"}},
		{engine.Banqi, "standard", "pnnAABcppKbcrkPbNpCBaNPRpaPRrPCP", nil},
	} {
		var out strings.Builder
		if err := playBoard(&out, nil, c.game, c.variant, c.layout, c.plies, false); err != nil {
			t.Fatal(err)
		}
		if s := out.String(); strings.Contains(s, "to move") || strings.Contains(s, "ongoing") {
			t.Errorf("%s:\n%s", c.game, s)
		}
	}
}
