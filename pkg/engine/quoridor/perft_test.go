package quoridor

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

type perftCase struct {
	pos   string
	depth int
	want  uint64
}

func readPerft(t *testing.T) []perftCase {
	t.Helper()
	f, err := os.Open("testdata/perft.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []perftCase
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Split(text, "|")
		if len(fields) != 3 {
			t.Fatalf("perft.txt:%d: want position | depth | count", line)
		}
		depth, err1 := strconv.Atoi(strings.TrimSpace(fields[1]))
		want, err2 := strconv.ParseUint(strings.TrimSpace(fields[2]), 10, 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("perft.txt:%d: bad depth or count", line)
		}
		cases = append(cases, perftCase{pos: strings.TrimSpace(fields[0]), depth: depth, want: want})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(cases) == 0 {
		t.Fatal("perft.txt holds no cases")
	}
	return cases
}

// TestPerft checks the fast generator against testdata/perft.txt; depths
// above 3 only without -short.
func TestPerft(t *testing.T) {
	t.Parallel()
	for _, c := range readPerft(t) {
		if c.depth > 3 && testing.Short() {
			continue
		}
		t.Run(c.pos+"/"+strconv.Itoa(c.depth), func(t *testing.T) {
			t.Parallel()
			p, err := DecodePosition(c.pos)
			if err != nil {
				t.Fatal(err)
			}
			if got := p.Perft(c.depth); got != c.want {
				t.Errorf("Perft(%d) = %d, want %d", c.depth, got, c.want)
			}
		})
	}
}

// TestPerftReference checks the fast generator against the slow reference
// from the start, root ply by root ply: to depth 3 (2,062,264 leaves), or
// to depth 2 under -short, and it compares the lists of legal plies
// themselves at the root and one ply deeper.
func TestPerftReference(t *testing.T) {
	t.Parallel()
	start, err := NewPosition(Standard, "")
	if err != nil {
		t.Fatal(err)
	}
	compareWithRef(t, start, 2)
	depth := 3
	if testing.Short() {
		depth = 2
	}
	want := map[int]uint64{2: 16677, 3: 2062264}[depth]
	var total uint64
	for _, m := range start.LegalMoves(nil) {
		child := start.apply(m)
		fast := child.Perft(depth - 1)
		total += fast
		t.Run(m.String(), func(t *testing.T) {
			t.Parallel()
			if ref := refFrom(start).play(m.String()).perft(depth - 1); ref != fast {
				t.Errorf("after %s: reference perft(%d) = %d, fast %d", m, depth-1, ref, fast)
			}
		})
	}
	if total != want {
		t.Errorf("perft(%d) = %d, want %d", depth, total, want)
	}
}

// TestPerftCountsLeaves checks that the last level counts legal plies
// without playing them, and that won positions count 1: perft(1) of every
// position along the real games is its number of legal plies, and
// perft(2) is the sum over its children.
func TestPerftCountsLeaves(t *testing.T) {
	t.Parallel()
	for _, g := range readGames(t) {
		p := mustStart(t)
		for i, m := range g.plies {
			if i%7 == 0 {
				n := uint64(len(p.LegalMoves(nil)))
				if p.Perft(1) != n || uint64(p.CountLegal()) != n {
					t.Fatalf("%s ply %d: Perft(1) = %d, CountLegal %d, %d legal plies", g.name, i, p.Perft(1), p.CountLegal(), n)
				}
				var sum uint64
				for _, c := range p.LegalMoves(nil) {
					q, err := p.PlayMove(c)
					if err != nil {
						t.Fatalf("%s ply %d: listed %s: %v", g.name, i, c, err)
					}
					if q.Outcome().Over() {
						sum++
					} else {
						sum += uint64(len(q.LegalMoves(nil)))
					}
				}
				if got := p.Perft(2); got != sum {
					t.Fatalf("%s ply %d: Perft(2) = %d, want %d", g.name, i, got, sum)
				}
			}
			var err error
			if p, err = p.PlayMove(m); err != nil {
				t.Fatal(err)
			}
		}
	}
}
