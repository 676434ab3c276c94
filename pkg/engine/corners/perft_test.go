package corners

import (
	"bufio"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// perftCases are the vectors that testdata/perft.txt holds: the start
// positions of classic-3x3 and diagonal-3x3 to depth 4 (the issue's
// figures), and the other variants to depth 3.
var perftCases = []struct {
	variant string
	depth   int
}{
	{"classic-3x3", 1}, {"classic-3x3", 2}, {"classic-3x3", 3}, {"classic-3x3", 4},
	{"diagonal-3x3", 1}, {"diagonal-3x3", 2}, {"diagonal-3x3", 3}, {"diagonal-3x3", 4},
	{"classic-3x4", 3}, {"diagonal-3x4", 3}, {"triangle", 3}, {"square-4x4", 3},
	{"training", 3}, {"halma-16x16", 2},
}

func readPerft(t *testing.T) map[string]uint64 {
	t.Helper()
	f, err := os.Open("testdata/perft.txt")
	if err != nil {
		t.Fatalf("open perft vectors (run go test -update to write them): %v", err)
	}
	defer f.Close()
	want := map[string]uint64{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fs := strings.Fields(line)
		if len(fs) != 3 {
			t.Fatalf("bad perft line %q", line)
		}
		n, err := strconv.ParseUint(fs[2], 10, 64)
		if err != nil {
			t.Fatalf("bad perft line %q: %v", line, err)
		}
		want[fs[0]+" "+fs[1]] = n
	}
	return want
}

// TestPerft checks the fast generator against the perft vectors and the
// reference generator (C1, C3, C6.1). Depth 4 runs only without -short.
func TestPerft(t *testing.T) {
	if *update {
		var sb strings.Builder
		sb.WriteString("# Corners perft from the start position: variant depth leaf-count.\n")
		sb.WriteString("# Written by go test -update; checked against the reference generator.\n")
		for _, c := range perftCases {
			b := start(t, c.variant).Board()
			fmt.Fprintf(&sb, "%s %d %d\n", c.variant, c.depth, b.Perft(c.depth))
		}
		if err := os.WriteFile("testdata/perft.txt", []byte(sb.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want := readPerft(t)
	for _, c := range perftCases {
		if c.depth > 3 && testing.Short() {
			continue
		}
		t.Run(fmt.Sprintf("%s/%d", c.variant, c.depth), func(t *testing.T) {
			t.Parallel()
			w, ok := want[fmt.Sprintf("%s %d", c.variant, c.depth)]
			if !ok {
				t.Fatalf("no vector in testdata/perft.txt")
			}
			p := start(t, c.variant)
			b := p.Board()
			if got := b.Perft(c.depth); got != w {
				t.Errorf("fast perft = %d, want %d", got, w)
			}
			r := refOf(p)
			if got := r.perft(c.depth, c.variant == "training"); got != w {
				t.Errorf("reference perft = %d, want %d", got, w)
			}
		})
	}
}

// TestStartPlies checks the published figure: square-4x4's start gives
// white 16 plies, 8 steps and 8 jumps (C3), and that the fast and reference
// generators list the same plies at every start.
func TestStartPlies(t *testing.T) {
	p := start(t, "square-4x4")
	steps, jumps := 0, 0
	for _, ply := range p.Legal() {
		if ply.(Move).IsJump() {
			jumps++
		} else {
			steps++
		}
	}
	if steps != 8 || jumps != 8 {
		t.Errorf("square-4x4 start: %d steps and %d jumps, want 8 and 8", steps, jumps)
	}
	for _, v := range Variants() {
		p := start(t, v.ID)
		r := refOf(p)
		if got, want := fastLegal(p), r.legal(); !slices.Equal(got, want) {
			t.Errorf("%s start: fast %v, reference %v", v.ID, got, want)
		}
	}
}
