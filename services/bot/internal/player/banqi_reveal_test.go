package player

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine/banqi"
)

// bOpening builds an opening view, red (the first seat) to move after as
// many plies as pieces are revealed (one more if that is odd), the last a
// reveal on last: the revealed pieces at the squares given, every other
// square face down, nothing captured.
func bOpening(t *testing.T, pieces map[string]byte, last string) banqi.View {
	t.Helper()
	board := []byte(strings.Repeat("?", banqi.NumSquares))
	for name, letter := range pieces {
		sq := bSquare(t, name)
		board[sq] = letter
	}
	plies := len(pieces) + len(pieces)%2
	v, err := banqi.DecodeConcreteView(string(board) + " first red 0 " + strconv.Itoa(plies) + " " + last + " -")
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// bSquare parses a square's name ("d2").
func bSquare(t *testing.T, name string) banqi.Square {
	t.Helper()
	sq := banqi.SquareAt(int(name[0]-'a'), int(name[1]-'1'))
	if !sq.Valid() || len(name) != 2 {
		t.Fatalf("square %q", name)
	}
	return sq
}

// TestBanqiRevealScore: revealing next to an enemy general (which takes
// any of our pieces but a soldier that turns up there) or in line of an
// enemy cannon over a screen costs, on average; revealing next to our own
// advisor (which takes most enemy pieces turned up there, though an enemy
// advisor takes it first) costs less; next to the enemy cannon (which
// our pieces take, and which takes nothing next to it) gains; a reveal
// away from every revealed piece scores 0.
func TestBanqiRevealScore(t *testing.T) {
	t.Parallel()
	// Red advisor on a1; black general on d2, black cannon on h1.
	v := bOpening(t, map[string]byte{"a1": 'A', "d2": 'k', "h1": 'c'}, "d2")
	me := v.Colour(v.ToMove())
	if me != banqi.Red {
		t.Fatalf("red should be to move, not %s", me)
	}
	score := func(name string) int { return bRevealScore(&v, me, bSquare(t, name)) }
	for _, sq := range []string{"c2", "e2", "d1", "d3"} {
		if s := score(sq); s >= 0 {
			t.Errorf("reveal %s next to the black general scores %d, want < 0", sq, s)
		}
	}
	// f1 is beyond the screen g1 from the cannon on h1.
	if s := score("f1"); s >= 0 {
		t.Errorf("reveal f1 in the black cannon's line scores %d, want < 0", s)
	}
	if score("a2") <= score("c2") {
		t.Errorf("reveal a2 next to the red advisor scores %d, c2 next to the black general %d: want a2 better", score("a2"), score("c2"))
	}
	if s := score("g1"); s <= 0 {
		t.Errorf("reveal g1 next to the black cannon scores %d, want > 0", s)
	}
	if s := score("h4"); s != 0 {
		t.Errorf("reveal h4, away from every piece, scores %d, want 0", s)
	}
	// The cannon takes any red piece turned up in its line, the general
	// all but soldiers.
	if score("f1") >= score("c2") {
		t.Errorf("reveal f1 scores %d, c2 %d: want the cannon's line worse", score("f1"), score("c2"))
	}
}

// TestBanqiPolicyReveals: the policy keeps the steps and captures, then
// the best reveals, best first: none it drops scores better than one it
// keeps.
func TestBanqiPolicyReveals(t *testing.T) {
	t.Parallel()
	v := bOpening(t, map[string]byte{"a1": 'A', "d2": 'k', "h1": 'c'}, "d2")
	moves := v.LegalMoves(nil)
	kept := bPolicyReveals(&v, slices.Clone(moves), 3)
	var steps, reveals []string
	for _, m := range kept {
		if m.Kind() == banqi.KindReveal {
			reveals = append(reveals, m.String())
		} else {
			steps = append(steps, m.String())
		}
	}
	if len(reveals) != 3 {
		t.Fatalf("kept reveals %v, want 3", reveals)
	}
	me := v.Colour(v.ToMove())
	score := func(name string) int { return bRevealScore(&v, me, bSquare(t, name)) }
	// g1 and h2, next to the black cannon, score best.
	if reveals[0] != "g1" || reveals[1] != "h2" {
		t.Errorf("kept reveals %v, want g1 and h2 first", reveals)
	}
	for i := 1; i < len(reveals); i++ {
		if score(reveals[i]) > score(reveals[i-1]) {
			t.Errorf("kept reveals %v out of order: %s scores %d, %s %d", reveals, reveals[i-1], score(reveals[i-1]), reveals[i], score(reveals[i]))
		}
	}
	worst := score(reveals[len(reveals)-1])
	for _, m := range moves {
		if m.Kind() == banqi.KindReveal && !slices.Contains(reveals, m.String()) && score(m.String()) > worst {
			t.Errorf("dropped reveal %s scores %d, more than the kept %v", m, score(m.String()), reveals)
		}
	}
	if len(steps) != 0 {
		t.Errorf("kept steps %v; the advisor on a1 has no empty neighbour", steps)
	}
	for _, r := range reveals {
		for _, bad := range []string{"c2", "e2", "d1", "d3", "f1"} {
			if r == bad {
				t.Errorf("kept reveal %s, which exposes a red piece", r)
			}
		}
	}
}

// TestBanqiExpertRevealsSafely: with only reveals to play, the expert at
// depths 1 and 2, with the reveal policy and without, does not reveal next
// to the black general or in the black cannon's lines.
func TestBanqiExpertRevealsSafely(t *testing.T) {
	t.Parallel()
	v := bOpening(t, map[string]byte{"a1": 'A', "d2": 'k', "h1": 'c'}, "d2")
	for _, policy := range []bool{false, true} {
		g := bExpertGame()
		g.policy, g.rootReveals = policy, bRootReveals
		for depth := 1; depth <= 2; depth++ {
			m, score := bExpertPlyWith(t, g, v, depth)
			if m.Kind() != banqi.KindReveal {
				t.Fatalf("policy %v, depth %d: expert plays %s, want a reveal", policy, depth, m)
			}
			for _, bad := range []string{"c2", "e2", "d1", "d3", "f1", "h3"} {
				if m.String() == bad {
					t.Errorf("policy %v, depth %d: expert reveals %s (score %d), next to the black general or in the cannon's line", policy, depth, m, score)
				}
			}
		}
	}
}

// TestBanqiPolicyMovesAllocate: the expert's move lists with the reveal
// policy on allocate nothing, at the root and below it.
func TestBanqiPolicyMovesAllocate(t *testing.T) {
	v := bOpening(t, map[string]byte{"a1": 'A', "d2": 'k', "h1": 'c'}, "d2")
	g := bGame{reveals: 2, expert: true, policy: true, rootReveals: bRootReveals}
	buf := make([]banqi.Move, 0, 96)
	for _, ply := range []int8{0, 1} {
		s := bState{v: v, ply: ply}
		var n int
		allocs := testing.AllocsPerRun(100, func() { n = len(g.Moves(&s, buf[:0])) })
		if allocs != 0 {
			t.Errorf("ply %d: Moves allocates %.1f times", ply, allocs)
		}
		if want := min(bRootReveals, 29); ply == 0 && n != want {
			t.Errorf("root: %d plies, want %d reveals", n, want)
		}
		if ply == 1 && n != 2 {
			t.Errorf("below the root: %d plies, want 2 reveals", n)
		}
	}
}
