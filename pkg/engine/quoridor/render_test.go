package quoridor

import (
	"flag"
	"os"
	"path/filepath"
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
