package quoridor

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

// record is a game from testdata/real-games: header lines "# key: value",
// then plies separated by white space, with optional move numbers ("12.").
type record struct {
	name   string
	header map[string]string
	plies  []Move
}

func readRecord(t *testing.T, path string) record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r := record{name: filepath.Base(path), header: map[string]string{}}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if h, ok := strings.CutPrefix(line, "#"); ok {
			if k, v, ok := strings.Cut(h, ":"); ok {
				r.header[strings.TrimSpace(k)] = strings.TrimSpace(v)
			}
			continue
		}
		for _, tok := range strings.Fields(line) {
			if strings.HasSuffix(tok, ".") && strings.Trim(tok, "0123456789") == "." {
				continue // a move number
			}
			m, err := ParseMove(tok)
			if err != nil {
				t.Fatalf("%s: ply %d: %v", r.name, len(r.plies)+1, err)
			}
			r.plies = append(r.plies, m)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return r
}

func readGames(t *testing.T) []record {
	t.Helper()
	paths, err := filepath.Glob("testdata/real-games/quoridor-*.txt")
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no games in testdata/real-games")
	}
	var out []record
	for _, p := range paths {
		out = append(out, readRecord(t, p))
	}
	return out
}

func mustStart(t *testing.T) Position {
	t.Helper()
	p, err := NewPosition(Standard, "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestRealGames replays every record: each ply is legal, Decode(Encode)
// is the identity along the way, and the end agrees with the header's
// result_by_replay (a goal at the last ply, or an ongoing game with the
// pawns and walls it names).
func TestRealGames(t *testing.T) {
	t.Parallel()
	for _, g := range readGames(t) {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			p := mustStart(t)
			for i, m := range g.plies {
				if p.Outcome().Over() {
					t.Fatalf("ply %d %s after the end: %v", i+1, m, p.Outcome())
				}
				q, err := p.PlayMove(m)
				if err != nil {
					t.Fatalf("ply %d %s: %v\n%s", i+1, m, err, p.Render())
				}
				if !containsMove(p.LegalMoves(nil), m) {
					t.Fatalf("ply %d %s plays but is not listed", i+1, m)
				}
				p = q
				if d, err := DecodePosition(p.Encode()); err != nil || d != p {
					t.Fatalf("ply %d: Decode(%q) = %v, %v", i+1, p.Encode(), d.Encode(), err)
				}
			}
			res := g.header["result_by_replay"]
			var who string
			var ply, ww, wb int
			if _, err := fmt.Sscanf(res, "%s reaches its goal rank at ply %d (walls left white %d black %d)", &who, &ply, &ww, &wb); err == nil {
				want := engine.WinFor(engine.First, engine.ReasonGoal)
				if who == "black" {
					want = engine.WinFor(engine.Second, engine.ReasonGoal)
				}
				if got := p.Outcome(); got != want || ply != len(g.plies) {
					t.Errorf("after %d plies: %v; header says %q", len(g.plies), got, res)
				}
			} else {
				var sw, sb string
				if _, err := fmt.Sscanf(res, "no goal reached after ply %d (white %s black %s walls left white %d black %d)", &ply, &sw, &sb, &ww, &wb); err != nil {
					t.Fatalf("result_by_replay %q: %v", res, err)
				}
				if p.Outcome().Over() || ply != len(g.plies) {
					t.Errorf("after %d plies: %v; header says %q", len(g.plies), p.Outcome(), res)
				}
				if got := p.Pawn(engine.First).String() + "," + " " + p.Pawn(engine.Second).String() + ","; got != sw+" "+sb {
					t.Errorf("pawns %q; header says %q", got, res)
				}
			}
			if p.WallsLeft(engine.First) != ww || p.WallsLeft(engine.Second) != wb {
				t.Errorf("walls left %d, %d; header says %q", p.WallsLeft(engine.First), p.WallsLeft(engine.Second), res)
			}
		})
	}
}

func containsMove(ms []Move, m Move) bool {
	for _, x := range ms {
		if x == m {
			return true
		}
	}
	return false
}

// TestReferenceMidGame compares the fast generator with the reference
// along the real games: the legal plies at every position, and two plies
// deep at a few (every tenth ply without -short).
func TestReferenceMidGame(t *testing.T) {
	t.Parallel()
	games := readGames(t)
	for gi, g := range games {
		t.Run(g.name, func(t *testing.T) {
			t.Parallel()
			p := mustStart(t)
			for i, m := range g.plies {
				deep := (!testing.Short() && i%10 == 5) || (gi%6 == 0 && i == 25)
				if deep {
					compareWithRef(t, p, 2)
				} else {
					compareWithRef(t, p, 1)
				}
				var err error
				if p, err = p.PlayMove(m); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}
