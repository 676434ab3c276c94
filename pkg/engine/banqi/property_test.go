package banqi

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

// maxPlies bounds any game: every PlyLimit plies there is a reveal or a
// capture (B5.2), and there are at most 32 reveals and 31 captures.
const maxPlies = (NumSquares + NumSquares - 1 + 1) * PlyLimit

// randomGame plays uniformly random legal plies from a seeded layout and
// calls visit with every position, the start included.
func randomGame(t testing.TB, r *rand.Rand, layout Layout, visit func(Position)) Position {
	t.Helper()
	p := layout.Position()
	buf := make([]Move, 0, 128)
	visit(p)
	for range maxPlies {
		ms := p.LegalMoves(buf[:0])
		if len(ms) == 0 {
			break
		}
		m := ms[r.IntN(len(ms))]
		var err error
		if p, err = p.PlayMove(m); err != nil {
			t.Fatalf("listed ply %s refused: %v", m, err)
		}
		visit(p)
	}
	if !p.Outcome().Over() {
		t.Fatalf("game still going after %d plies", p.Plies())
	}
	return p
}

func randomLayout(r *rand.Rand) Layout {
	var seed [32]byte
	for i := range seed {
		seed[i] = byte(r.Uint32())
	}
	return LayoutFromSeed(seed)
}

// checkView checks B6 on one position: the view holds no face-down
// identity (every face-down square is exactly FaceDown, and every position
// that differs only in the face-down identities has the very same view),
// its face-down counts equal the true multiset, and it agrees with the
// position on everything public.
func checkView(t testing.TB, r *rand.Rand, p Position) {
	t.Helper()
	v := p.PublicView()
	if ev := p.View(engine.First); ev != v || p.View(engine.Second) != v || p.View(engine.NoSeat) != v {
		t.Fatalf("seats and spectators see different views")
	}
	var trueDown [numPieces]int
	for s := Square(0); s < NumSquares; s++ {
		switch {
		case p.FaceDown(s):
			trueDown[p.PieceAt(s)]++
			if v.Cell(s) != FaceDown || v.Cell(s).Piece() != NoPiece {
				t.Fatalf("%s: face-down %s shows as %v in the view", s, p.PieceAt(s), v.Cell(s))
			}
		case p.PieceAt(s) == NoPiece:
			if v.Cell(s) != Empty {
				t.Fatalf("%s: empty square shows as %v", s, v.Cell(s))
			}
		default:
			if v.Cell(s).Piece() != p.PieceAt(s) {
				t.Fatalf("%s: revealed %s shows as %v", s, p.PieceAt(s), v.Cell(s))
			}
		}
	}
	for _, pc := range allPieces {
		if v.FaceDownCount(pc) != trueDown[pc] || v.CapturedCount(pc) != p.CapturedCount(pc) {
			t.Fatalf("%s: view counts face down %d captured %d, true %d %d", pc.Name(), v.FaceDownCount(pc), v.CapturedCount(pc), trueDown[pc], p.CapturedCount(pc))
		}
	}
	enc := v.Encode()
	for s := Square(0); s < NumSquares; s++ {
		if p.FaceDown(s) && enc[s] != '?' {
			t.Fatalf("encoded view shows %c on face-down %s", enc[s], s)
		}
	}
	// A determinization permutes the face-down identities: its view must
	// be the same value, so the view cannot depend on them.
	sample := v.Sample(r)
	if sample.PublicView() != v {
		t.Fatalf("a position with other face-down identities has another view")
	}
	if err := sample.Validate(); err != nil {
		t.Fatalf("sample: %v", err)
	}
	if !slices.Equal(v.LegalMoves(nil), p.LegalMoves(nil)) || v.Outcome() != p.Outcome() || v.ToMove() != p.ToMove() || v.Plies() != p.Plies() {
		t.Fatalf("view and position disagree on legal plies or outcome")
	}
	if !slices.IsSortedFunc(p.LegalMoves(nil), func(a, b Move) int {
		return int(a.From())*64 + int(a.To()) - int(b.From())*64 - int(b.To())
	}) {
		t.Fatalf("legal plies not in canonical order: %v", p.LegalMoves(nil))
	}
	if dv, err := DecodeConcreteView(enc); err != nil || dv != v {
		t.Fatalf("DecodeView(%q): %v", enc, err)
	}
	if dp, err := DecodePosition(p.Encode()); err != nil || dp != p {
		t.Fatalf("Decode(%q): %v", p.Encode(), err)
	}
	for s := Square(0); s < NumSquares; s++ {
		ids := v.Identities(s)
		if !p.FaceDown(s) {
			if ids != nil {
				t.Fatalf("%s is not face down but has identities", s)
			}
			continue
		}
		sum, found := 0.0, false
		for _, c := range ids {
			sum += c.P
			found = found || c.Piece == p.PieceAt(s)
		}
		if !found || math.Abs(sum-1) > 1e-9 {
			t.Fatalf("%s: identities %v sum to %v, true piece listed %v", s, ids, sum, found)
		}
	}
}

// TestViewsNeverLeak plays random games and checks every view against the
// true position (B6).
func TestViewsNeverLeak(t *testing.T) {
	t.Parallel()
	games := 40
	if testing.Short() {
		games = 8
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range games {
		randomGame(t, r, randomLayout(r), func(p Position) { checkView(t, r, p) })
	}
}

// TestViewPlay checks that a view follows the game: View.PlayMove for steps
// and captures and View.Reveal for reveals give the view of the next true
// position.
func TestViewPlay(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	var prev Position
	started := false
	randomGame(t, r, randomLayout(r), func(p Position) {
		if started {
			v, m := prev.PublicView(), p.LastMove()
			var next View
			var err error
			if m.Kind() == KindReveal {
				next, err = v.Reveal(m.From(), p.PieceAt(m.From()))
			} else {
				next, err = v.PlayMove(m)
			}
			if err != nil || next != p.PublicView() {
				t.Fatalf("view after %s: %v", m, err)
			}
		}
		prev, started = p, true
	})
}

// TestCheckMatchesGenerator checks, in random positions, that PlayMove
// accepts exactly the plies that LegalMoves lists, over every possible
// Move.
func TestCheckMatchesGenerator(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	n := 0
	randomGame(t, r, randomLayout(r), func(p Position) {
		n++
		if n%3 != 0 || p.Outcome().Over() {
			return
		}
		legal := p.LegalMoves(nil)
		for k := KindReveal; k <= KindCapture; k++ {
			for from := Square(0); from < NumSquares; from++ {
				for to := Square(0); to < NumSquares; to++ {
					m := pack(k, from, to)
					_, err := p.PlayMove(m)
					if (err == nil) != slices.Contains(legal, m) {
						t.Fatalf("%s in %s: PlayMove err %v, listed %v", m, p.Encode(), err, slices.Contains(legal, m))
					}
				}
			}
		}
	})
}
