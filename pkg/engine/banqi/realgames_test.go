package banqi

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

type record struct {
	header map[string]string
	plies  []string
}

func readRecord(t testing.TB, path string) record {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r := record{header: map[string]string{}}
	for line := range strings.Lines(string(data)) {
		line = strings.TrimSpace(line)
		if k, v, ok := strings.Cut(strings.TrimPrefix(line, "# "), ": "); strings.HasPrefix(line, "#") && ok {
			r.header[k] = v
			continue
		}
		r.plies = append(r.plies, strings.Fields(line)...)
	}
	return r
}

var (
	reWin     = regexp.MustCompile(`^(first|second) player .* has no legal ply after ply (\d+): (first|second) player .* wins under B5\.1$`)
	reNotOver = regexp.MustCompile(`^game not over under RULES\.md after ply (\d+) `)
	reLegal   = regexp.MustCompile(`side to move has (\d+) legal plies`)
	reQuiet   = regexp.MustCompile(`(?:(\d+) plies since the last capture or reveal|counter is (\d+))`)
	reColours = regexp.MustCompile(`^first=(red|black) second=(red|black)`)
)

func seatOf(s string) engine.Seat {
	if s == "first" {
		return engine.First
	}
	return engine.Second
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestRealGames replays every real game record: every ply is legal (B3,
// B4), colours come from the first reveal (B2) and the outcome matches the
// record's result_by_replay line (B5). banqi-023's legal_counts are checked
// at each of their points.
func TestRealGames(t *testing.T) {
	paths, err := filepath.Glob("testdata/real-games/banqi-*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no real games found: %v", err)
	}
	sawCounts := false
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			r := readRecord(t, path)
			layout, err := ParseLayout(r.header["layout"])
			if err != nil {
				t.Fatal(err)
			}
			if n := atoi(t, r.header["plies"]); n != len(r.plies) {
				t.Fatalf("header says %d plies, file has %d", n, len(r.plies))
			}
			counts := map[int]int{}
			if lc, ok := r.header["legal_counts"]; ok {
				_, list, _ := strings.Cut(lc, "): ")
				for _, pair := range strings.Fields(list) {
					a, b, _ := strings.Cut(pair, ":")
					counts[atoi(t, a)] = atoi(t, b)
				}
				if len(counts) != 34 {
					t.Fatalf("legal_counts has %d points, want 34", len(counts))
				}
				sawCounts = true
			}
			p := layout.Position()
			checked := 0
			for i, s := range r.plies {
				if want, ok := counts[i+1]; ok {
					if got := len(p.LegalMoves(nil)); got != want {
						t.Errorf("before ply %d: %d legal plies, want %d", i+1, got, want)
					}
					checked++
				}
				m, err := ParseMove(s)
				if err != nil {
					t.Fatalf("ply %d: %v", i+1, err)
				}
				if p, err = p.PlayMove(m); err != nil {
					t.Fatalf("ply %d: %v", i+1, err)
				}
				if err := p.Validate(); err != nil {
					t.Fatalf("after ply %d: %v", i+1, err)
				}
			}
			if checked != len(counts) {
				t.Errorf("checked %d legal counts, want %d", checked, len(counts))
			}
			if c := reColours.FindStringSubmatch(r.header["colours_by_replay"]); c != nil {
				if p.SeatName(engine.First) != c[1] || p.SeatName(engine.Second) != c[2] {
					t.Errorf("colours first=%s second=%s, want %s %s", p.SeatName(engine.First), p.SeatName(engine.Second), c[1], c[2])
				}
			} else {
				t.Errorf("no colours_by_replay line")
			}
			res := r.header["result_by_replay"]
			switch {
			case reWin.MatchString(res):
				c := reWin.FindStringSubmatch(res)
				if atoi(t, c[2]) != len(r.plies) {
					t.Fatalf("result after ply %s, record has %d", c[2], len(r.plies))
				}
				// The record says "no legal ply"; a side with no pieces left
				// has none either, and B5.1 names that case first.
				loser := seatOf(c[1])
				lost := 0
				for k := General; k <= Soldier; k++ {
					lost += p.CapturedCount(MakePiece(p.Colour(loser), k))
				}
				want := engine.WinFor(seatOf(c[3]), engine.ReasonNoLegalMove)
				if lost == 16 {
					want.Reason = engine.ReasonNoPieces
				}
				if got := p.Outcome(); got != want || loser != seatOf(c[3]).Other() {
					t.Errorf("outcome %v, want %v", got, want)
				}
				if n := len(genMoves(&p.cells, p.Colour(loser), nil)); n != 0 {
					t.Errorf("loser has %d legal plies, want 0", n)
				}
			case reNotOver.MatchString(res):
				if got := p.Outcome(); got.Over() {
					t.Errorf("outcome %v, want ongoing", got)
				}
				if c := reLegal.FindStringSubmatch(res); c == nil || len(p.LegalMoves(nil)) != atoi(t, c[1]) {
					t.Errorf("%d legal plies, want those of %q", len(p.LegalMoves(nil)), res)
				}
				c := reQuiet.FindStringSubmatch(res)
				if c == nil {
					t.Fatalf("no quiet count in %q", res)
				}
				if want := atoi(t, c[1]+c[2]); p.Quiet() != want {
					t.Errorf("quiet %d, want %d", p.Quiet(), want)
				}
			default:
				t.Fatalf("unrecognised result_by_replay %q", res)
			}
		})
	}
	if !sawCounts {
		t.Error("no record carried legal_counts")
	}
}
