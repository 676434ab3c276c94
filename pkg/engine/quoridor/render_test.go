package quoridor

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestRender compares Render with testdata/render/*.golden; go test -update
// rewrites them for review.
func TestRender(t *testing.T) {
	t.Parallel()
	g001 := readRecord(t, "testdata/real-games/quoridor-001.txt")
	g002 := readRecord(t, "testdata/real-games/quoridor-002.txt")
	tests := []struct {
		name  string
		plies []Move
		limit bool
	}{
		{name: "start", plies: nil},
		{name: "midgame", plies: g002.plies},
		{name: "walls", plies: g001.plies[:60]},
		{name: "white-wins", plies: g001.plies},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := mustStart(t)
			for _, m := range tt.plies {
				var err error
				if p, err = p.PlayMove(m); err != nil {
					t.Fatal(err)
				}
			}
			got := p.Render()
			path := filepath.Join("testdata", "render", tt.name+".golden")
			if *update {
				if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("Render() =\n%s\nwant\n%s", got, want)
			}
		})
	}
	draw := shuffle(t, Limit200, 200).Render()
	if want := "game over: draw (ply-limit)\n"; draw[len(draw)-len(want):] != want {
		t.Errorf("limit200 draw renders\n%s", draw)
	}
}

// RenderFlipped is Render turned half a turn: black's view, rank 1 at the
// top, file i on the left, the walls where black sees them.
func TestRenderFlipped(t *testing.T) {
	t.Parallel()
	p := mustStart(t)
	for _, m := range []string{"e2", "e8", "e3h", "d7v"} {
		mv, err := ParseMove(m)
		if err != nil {
			t.Fatal(err)
		}
		if p, err = p.PlayMove(mv); err != nil {
			t.Fatal(err)
		}
	}
	got := p.RenderFlipped()
	want := `     i   h   g   f   e   d   c   b   a
   +-----------------------------------+
 1 | .   .   .   .   .   .   .   .   . | 1
   |                                   |
 2 | .   .   .   .   W   .   .   .   . | 2
   |                                   |
 3 | .   .   .   .   .   .   .   .   . | 3
   |            =======                |
 4 | .   .   .   .   .   .   .   .   . | 4
`
	if !strings.HasPrefix(got, want) {
		t.Errorf("RenderFlipped() starts\n%s\nwant\n%s", got, want)
	}
	if !strings.HasSuffix(got, "   +-----------------------------------+\n     i   h   g   f   e   d   c   b   a\nwalls left: white 9, black 9\nto move: white\n") {
		t.Errorf("RenderFlipped() ends\n%s", got)
	}
	// Turned twice is the board again: every square, wall and label of
	// Render is in RenderFlipped, read backwards.
	lines, flipped := strings.Split(p.Render(), "\n"), strings.Split(got, "\n")
	for i := 2; i < 19; i++ {
		a, b := lines[i][3:40], flipped[20-i][3:40]
		if a != reverse(b) {
			t.Errorf("row %d: %q is not %q turned", i, a, b)
		}
	}
}

func reverse(s string) string {
	r := []byte(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}
