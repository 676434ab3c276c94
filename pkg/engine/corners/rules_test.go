package corners

import (
	"errors"
	"slices"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

// playResult plays s on p and returns the rule broken ("" if legal), the
// ply actually played and the outcome.
func playResult(t *testing.T, p Position, s string) (rule, played, outcome string) {
	t.Helper()
	ply, err := p.ParsePly(s)
	if err != nil {
		t.Fatalf("parse %s: %v", s, err)
	}
	next, err := p.Play(ply)
	if err != nil {
		var re *engine.RuleError
		if !errors.As(err, &re) || !errors.Is(err, engine.ErrIllegalMove) {
			t.Fatalf("play %s: %v is not a *engine.RuleError", s, err)
		}
		return re.Rule, "", ""
	}
	n := next.(Position)
	last, _ := n.LastPly()
	return "", last.String(), outcomeOf(n)
}

// listed reports whether the ply from-to is among p's legal plies.
func listed(p Position, s string) bool {
	m, err := ParseMove(s)
	if err != nil {
		panic(err)
	}
	for _, ply := range p.Legal() {
		l := ply.(Move)
		if l.From() == m.From() && l.To() == m.To() {
			return true
		}
	}
	return false
}

// TestVariants checks C2's table and C7's ratings and clocks.
func TestVariants(t *testing.T) {
	tests := []struct {
		id       string
		pieces   int
		deadline int
		limit    int
		rated    bool
		players  int
		size     int
	}{
		{"classic-3x3", 9, 40, 80, true, 2, 8},
		{"classic-3x4", 12, 40, 80, true, 2, 8},
		{"diagonal-3x3", 9, 30, 80, true, 2, 8},
		{"diagonal-3x4", 12, 30, 80, false, 2, 8},
		{"triangle", 10, 40, 80, false, 2, 8},
		{"square-4x4", 16, 40, 80, false, 2, 8},
		{"halma-16x16", 19, 60, 200, false, 2, 16},
		{"training", 9, 0, 80, false, 1, 8},
	}
	vs := Variants()
	if len(vs) != len(tests) {
		t.Fatalf("Variants() has %d variants, want %d", len(vs), len(tests))
	}
	for i, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			t.Parallel()
			v := vs[i]
			if v.ID != tt.id || v.Game != engine.Corners || v.Rated != tt.rated || v.Players != tt.players {
				t.Errorf("variant %+v, want id %s rated %v players %d", v, tt.id, tt.rated, tt.players)
			}
			solo := tt.id == "training"
			wantBase, wantInc := int64(300000), int64(3000)
			if solo {
				wantBase, wantInc = 0, 0
			}
			if v.Draws == solo || v.DefaultBaseMS != wantBase || v.DefaultIncrementMS != wantInc || v.NeedsSetup {
				t.Errorf("variant %+v: draws, clock or setup wrong (C7)", v)
			}
			p := start(t, tt.id)
			b := p.Board()
			if b.Deadline() != tt.deadline || b.MoveLimit() != tt.limit || b.Size() != tt.size {
				t.Errorf("deadline %d, limit %d, size %d; want %d, %d, %d",
					b.Deadline(), b.MoveLimit(), b.Size(), tt.deadline, tt.limit, tt.size)
			}
			wh, bh := p.Home(engine.First), p.Home(engine.Second)
			if len(wh) != tt.pieces || len(bh) != tt.pieces {
				t.Errorf("homes of %d and %d squares, want %d", len(wh), len(bh), tt.pieces)
			}
			if !slices.Equal(p.Pieces(engine.First), wh) {
				t.Errorf("white starts on %v, want its home %v", p.Pieces(engine.First), wh)
			}
			wantBlack := bh
			if solo {
				wantBlack = nil
			}
			if !slices.Equal(p.Pieces(engine.Second), wantBlack) {
				t.Errorf("black starts on %v, want %v", p.Pieces(engine.Second), wantBlack)
			}
			for _, q := range wh { // black's home is white's reflected (C2)
				if !slices.Contains(bh, mirror(q, tt.size)) {
					t.Errorf("%s's mirror is not in black's home %v", q, bh)
				}
			}
		})
	}
}

// TestHomeShapes checks the homes that are not rectangles (C2).
func TestHomeShapes(t *testing.T) {
	tests := []struct {
		variant string
		want    string
	}{
		{"triangle", "a1 b1 c1 d1 a2 b2 c2 a3 b3 a4"},
		{"halma-16x16", "a1 b1 c1 d1 e1 a2 b2 c2 d2 e2 a3 b3 c3 d3 a4 b4 c4 a5 b5"},
		{"classic-3x4", "a1 b1 c1 d1 a2 b2 c2 d2 a3 b3 c3 d3"},
		{"square-4x4", "a1 b1 c1 d1 a2 b2 c2 d2 a3 b3 c3 d3 a4 b4 c4 d4"},
	}
	for _, tt := range tests {
		p := start(t, tt.variant)
		var got []string
		for _, q := range p.Home(engine.First) {
			got = append(got, q.String())
		}
		if sortedSquares(t, tt.want) != sortedSquares(t, joinFields(got)) {
			t.Errorf("%s: white's home %v, want %s", tt.variant, got, tt.want)
		}
	}
	if got := start(t, "classic-3x4").Home(engine.Second)[0].String(); got != "e6" {
		t.Errorf("classic-3x4: black's home starts at %s, want e6 (C2)", got)
	}
}

func joinFields(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out
}

// chainPosition is classic-3x3 with white to move and a ring of pieces
// around c3: c3 can jump to e3, on to e5, to c5 and back toward c3.
func chainPosition(t *testing.T) Position {
	return setup(t, "classic-3x3", 0,
		"c3 d3 e4 d5 c4 a1 b1 c1 a2",
		"f6 g6 h6 f7 g7 h7 f8 g8 h8")
}

// TestChains covers steps and jump chains (C1, C3).
func TestChains(t *testing.T) {
	tests := []struct {
		name       string
		give       string
		wantRule   string
		wantPlayed string
	}{
		{"C3.1 step", "d3-e3", "", "d3-e3"},
		{"C3.1 step onto a piece", "c3-c4", "C3.1", ""},
		{"C3.1 diagonal step in an orthogonal variant", "c3-d4", "C3.1", ""},
		{"C3.2 single jump", "a1-a3", "", "a1-a3"},
		{"C3.2 stop mid-chain", "c3-e3", "", "c3-e3"},
		{"C3.2 full chain checked hop by hop", "c3-e3-e5-c5", "", "c3-e3-e5-c5"},
		{"C3.2 chain revisiting its start", "c3-e3-e5-c5-c3", "C3.2", ""},
		{"C3.2 shorthand to its start", "c3-c3", "C3.2", ""},
		{"C3.2 hop of the wrong length (a gap)", "c3-e3-e7", "C3.2", ""},
		{"C3.2 jump over an empty square", "c3-e3-g3", "C3.2", ""},
		{"C3.2 jump onto a piece", "a1-c1", "C3.2", ""},
		{"C3.2 diagonal jump in an orthogonal variant", "d3-f5", "C3.2", ""},
		{"C3.3 jump then step", "c3-e3-f3", "C3.3", ""},
		{"C3.3 step then jump", "d3-d4-f4", "C3.3", ""},
		{"C1 shorthand resolved to the shortest chain, up first", "c3-e5", "", "c3-c5-e5"},
		{"C1 shorthand with no chain", "c3-g3", "C3.2", ""},
		{"C3 empty start square", "d4-d5", "C3", ""},
		{"C3 opponent's piece", "f6-e6", "C3", ""},
	}
	p := chainPosition(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rule, played, _ := playResult(t, p, tt.give)
			if rule != tt.wantRule || played != tt.wantPlayed {
				t.Errorf("play %s: rule %q played %q, want rule %q played %q",
					tt.give, rule, played, tt.wantRule, tt.wantPlayed)
			}
		})
	}
	var dests []string
	for _, m := range p.Destinations(mustSquare(t, "c3")) {
		dests = append(dests, m.String())
	}
	if want := []string{"c3-c2", "c3-b3", "c3-c5", "c3-e3", "c3-c5-e5"}; !slices.Equal(dests, want) {
		t.Errorf("Destinations(c3) = %v, want %v (C1: one canonical chain per end)", dests, want)
	}
	if got := p.Destinations(mustSquare(t, "f6")); got != nil {
		t.Errorf("Destinations of an opponent piece = %v, want none", got)
	}
}

func mustSquare(t testing.TB, s string) Square {
	t.Helper()
	q, err := ParseSquare(s)
	if err != nil {
		t.Fatal(err)
	}
	return q
}

// TestLastMoveForBlack covers C4.
func TestLastMoveForBlack(t *testing.T) {
	filling := setup(t, "classic-3x3", 98,
		"f6 g6 h6 f7 g7 h7 g8 h8 e8",
		"a1 b1 c1 a2 b2 c2 a3 b3 d3")
	afterWhite := play(t, filling, "e8-f8")
	if afterWhite.Outcome().Over() || afterWhite.ToMove() != engine.Second {
		t.Fatalf("after white fills black's home: %s, %s to move; want ongoing, black to move (C4)",
			outcomeOf(afterWhite), seatName(afterWhite.ToMove()))
	}
	tests := []struct {
		name string
		pos  Position
		give string
		want string
	}{
		{"C4 black equalises: draw", afterWhite, "d3-c3", "draw (goal)"},
		{"C4 black fails to equalise: white wins", afterWhite, "d3-d4", "white wins (goal)"},
		{"C4 black fills first: black wins at once", setup(t, "classic-3x3", 99,
			"f6 g6 h6 f7 g7 h7 g8 e8 e7",
			"a1 b1 c1 a2 b2 c2 a3 b3 d3"), "d3-c3", "black wins (goal)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if rule, _, got := playResult(t, tt.pos, tt.give); rule != "" || got != tt.want {
				t.Errorf("play %s: rule %q outcome %q, want %q", tt.give, rule, got, tt.want)
			}
		})
	}
}

// TestDeadline covers C5.1 and C5.3.
func TestDeadline(t *testing.T) {
	const whiteOut = "b4 c5 d4 e3 e1 g1 g3 a5 d1"
	tests := []struct {
		name    string
		variant string
		plies   int
		white   string
		black   string
		give    string
		want    string
	}{
		{"C5.1 white still at home loses", "classic-3x3", 79,
			"a1 b4 c5 d4 e3 e1 g1 g3 a5", "a7 b7 c7 d7 a8 b8 c8 d8 e7", "d7-d6", "black wins (deadline)"},
		{"C5.1 black still at home loses", "classic-3x3", 79,
			whiteOut, "a7 b7 c7 d7 a8 b8 c8 d8 h8", "d7-d6", "white wins (deadline)"},
		{"C5.1 both at home: draw", "classic-3x3", 79,
			"a1 b4 c5 d4 e3 e1 g1 g3 a5", "a7 b7 c7 d7 a8 b8 c8 d8 h8", "d7-d6", "draw (deadline)"},
		{"C5.1 checked only after black's ply of the deadline move", "classic-3x3", 77,
			"a1 b4 c5 d4 e3 e1 g1 g3 a5", "a7 b7 c7 d7 a8 b8 c8 d8 h8", "d7-d6", "ongoing"},
		{"C5.1 leaving on the deadline move itself", "classic-3x3", 79,
			whiteOut, "a7 b7 c7 d7 a8 b8 c8 d8 f6", "f6-e6", "ongoing"},
		{"C5.1 diagonal variants: move 30", "diagonal-3x3", 59,
			"a1 b4 c5 d4 e3 e1 g1 g3 a5", "a7 b7 c7 d7 a8 b8 c8 d8 e7", "d7-d6", "black wins (deadline)"},
		{"C5.3 piece blocked at home by the opponent is excused", "diagonal-3x3", 59,
			"a1 e1 f1 g1 h1 e2 f2 g2 h2", "a2 b1 b2 a3 c1 c3 d7 d8 e8", "d7-d6", "ongoing"},
		{"C5.3 a piece with a free jump is not excused", "diagonal-3x3", 59,
			"a1 e1 f1 g1 h1 e2 f2 g2 h2", "a2 b1 b2 a3 c1 c5 d7 d8 e8", "d7-d6", "black wins (deadline)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := setup(t, tt.variant, tt.plies, tt.white, tt.black)
			if rule, _, got := playResult(t, p, tt.give); rule != "" || got != tt.want {
				t.Errorf("play %s: rule %q outcome %q, want %q", tt.give, rule, got, tt.want)
			}
		})
	}
}

// TestReturnHome covers C5.2.
func TestReturnHome(t *testing.T) {
	const white = "d3 d2 e1 f1 g1 h1 e4 f4 g4"
	const black = "c2 b3 a7 b7 c7 d7 a8 b8 e6"
	tests := []struct {
		name  string
		plies int
		give  string
		want  string
	}{
		{"C5.2 white steps home after the deadline and loses", 80, "d3-c3", "black wins (return-home)"},
		{"C5.2 a chain ending at home loses", 80, "d2-b2", "black wins (return-home)"},
		{"C5.2 a chain through home ending outside is legal", 80, "d2-b2-b4", "ongoing"},
		{"C5.2 black steps home after the deadline and loses", 81, "e6-f6", "white wins (return-home)"},
		{"C5.2 not yet on the deadline move itself", 78, "d3-c3", "ongoing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := setup(t, "classic-3x3", tt.plies, white, black)
			if !listed(p, tt.give) {
				t.Errorf("%s is not listed as legal; a losing return is still legal (C5.2)", tt.give)
			}
			if rule, _, got := playResult(t, p, tt.give); rule != "" || got != tt.want {
				t.Errorf("play %s: rule %q outcome %q, want %q", tt.give, rule, got, tt.want)
			}
		})
	}
}

// TestBlocking covers C6.1.
func TestBlocking(t *testing.T) {
	const white = "f1 g1 g2 h2 f3 h4 a4 b4 c4"
	tests := []struct {
		name     string
		variant  string
		white    string
		black    string
		give     string
		wantRule string
	}{
		{"C6.1 blocking refused in classic-3x3", "classic-3x3", white,
			"h1 a8 b8 c8 d8 a7 b7 c7 d7", "h4-h3", "C6.1"},
		{"C6.1 blocking allowed in diagonal-3x3", "diagonal-3x3", white,
			"h1 a8 b8 c8 d8 a7 b7 c7 d7", "h4-h3", ""},
		{"C6.1 the mover's piece only on a landing square still blocks", "classic-3x3",
			"h4 a4 b4 c4 d4 a5 b5 c5 d5", "h1 g1 h2 f1 a8 b8 c8 d8 a7", "h4-h3", "C6.1"},
		{"C6.1 a piece hemmed in by its own colour does not count", "classic-3x3",
			"e4 a4 b4 c4 d4 a5 b5 c5 d5", "h1 g1 h2 f1 h3 b8 c8 d8 a7", "e4-e3", ""},
		{"C6.1 a jump that blocks is refused too", "square-4x4",
			"f1 g1 h2 h5 a1 b1 c1 d1 a2 b2 c2 d2 a3 b3 c3 d3", "h1 h4 a8 b8 c8 d8 a7 b7 c7 d7 e7 e8 f8 g8 f7 g7", "h5-h3", "C6.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := setup(t, tt.variant, 0, tt.white, tt.black)
			rule, _, _ := playResult(t, p, tt.give)
			if rule != tt.wantRule {
				t.Errorf("play %s: rule %q, want %q", tt.give, rule, tt.wantRule)
			}
			if got, want := listed(p, tt.give), tt.wantRule == ""; got != want {
				t.Errorf("%s listed as legal: %v, want %v", tt.give, got, want)
			}
		})
	}
}

// rawBoard builds a board with any number of pieces, for positions that no
// real game of the variant reaches with its full set (C6.2).
func rawBoard(t *testing.T, variant string, plies int, white, black string) Board {
	t.Helper()
	vi, ok := lookup(variant)
	if !ok {
		t.Fatalf("variant %s", variant)
	}
	b := Board{variant: vi, plies: int32(plies)}
	for s, list := range []string{white, black} {
		for _, f := range splitFields(list) {
			b.pieces[s].set(mustSquare(t, f))
		}
	}
	b.hash = b.computeHash()
	return b
}

func splitFields(s string) []string {
	var out []string
	cur := ""
	for _, c := range s + " " {
		if c == ' ' {
			if cur != "" {
				out = append(out, cur)
			}
			cur = ""
			continue
		}
		cur += string(c)
	}
	return out
}

// TestNoLegalMove covers C6.2, and C4 when black cannot answer.
func TestNoLegalMove(t *testing.T) {
	tests := []struct {
		name  string
		white string
		black string
		plies int
		give  string
		want  string
	}{
		{"C6.2 white left without a ply: draw", "a1", "a2 b1 b2 a3 c1 c4", 1, "c4-c3", "draw (no-legal-move)"},
		{"C4 black cannot answer white's filling ply: white wins",
			"f6 g6 h6 f7 g7 h7 g8 h8 e8 a2 b1 b2 a3 c1 c3", "a1", 0, "e8-f8", "white wins (goal)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b := rawBoard(t, "diagonal-3x3", tt.plies, tt.white, tt.black)
			m, err := ParseMove(tt.give)
			if err != nil {
				t.Fatal(err)
			}
			nb, _, err := b.Play(m)
			if err != nil {
				t.Fatalf("play %s: %v", tt.give, err)
			}
			if got := outcomeText(nb.Outcome()); got != tt.want {
				t.Errorf("outcome %q, want %q", got, tt.want)
			}
			if len(nb.LegalMoves(nil)) != 0 {
				t.Errorf("plies listed after the game ended")
			}
		})
	}
}

// TestMoveLimit covers C6.3.
func TestMoveLimit(t *testing.T) {
	const black = "a1 b1 c4 a6 b6 a7 b7 a8 b8"
	tests := []struct {
		name  string
		plies int
		white string
		give  string
		want  string
	}{
		{"C6.3 equal counts after black's 80th ply: draw", 159, "f6 g6 h6 d4 d5 e4 e5 e3 d2", "c4-c3", "draw (move-limit)"},
		{"C6.3 more pieces in the opponent's home wins", 159, "f6 g6 h6 d4 d5 e4 e5 e3 d2", "c4-c5", "white wins (move-limit)"},
		{"C6.3 black ahead wins", 159, "f6 d6 h4 d4 d5 e4 e5 e3 d2", "c4-c5", "black wins (move-limit)"},
		{"C6.3 not before the 80th move", 157, "f6 g6 h6 d4 d5 e4 e5 e3 d2", "c4-c5", "ongoing"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := setup(t, "classic-3x3", tt.plies, tt.white, black)
			if rule, _, got := playResult(t, p, tt.give); rule != "" || got != tt.want {
				t.Errorf("play %s: rule %q outcome %q, want %q", tt.give, rule, got, tt.want)
			}
		})
	}
}

// TestRepetition covers C6.4: the start position for the third time with
// white to move is a draw, and sibling lines do not share history.
func TestRepetition(t *testing.T) {
	p0 := start(t, "classic-3x3")
	cycle := []string{"c3-d3", "f6-e6", "d3-c3", "e6-f6"}
	p4 := play(t, p0, cycle...)
	p7 := play(t, p4, cycle[:3]...)
	if p7.Outcome().Over() {
		t.Fatalf("after 7 plies: %s, want ongoing", outcomeOf(p7))
	}
	// Sibling lines from p4 must not overwrite each other's history.
	p5a := play(t, p4, "c3-d3")
	p5b := play(t, p4, "b3-b4")
	if p5a.hist[5] != p5a.Board().Hash() || p5b.hist[5] != p5b.Board().Hash() || len(p4.hist) != 5 {
		t.Errorf("sibling lines share history")
	}
	p8 := play(t, p7, cycle[3])
	if got := outcomeOf(p8); got != "draw (repetition)" {
		t.Errorf("start position a third time: %s, want draw (repetition)", got)
	}
	if len(p4.hist) != 5 || len(p7.hist) != 8 {
		t.Errorf("history lengths %d and %d, want 5 and 8", len(p4.hist), len(p7.hist))
	}
	// Same pieces, other side to move: not the same position.
	const w, b = "a1 b1 c1 a2 b2 c2 a3 b3 c3", "f6 g6 h6 f7 g7 h7 f8 g8 h8"
	if rawBoard(t, "classic-3x3", 0, w, b).Hash() == rawBoard(t, "classic-3x3", 1, w, b).Hash() {
		t.Errorf("the hash does not include the side to move")
	}
	// Encode leaves the history out: a decoded position starts afresh.
	d, err := DecodePosition(p7.Encode())
	if err != nil {
		t.Fatal(err)
	}
	if got := outcomeOf(play(t, d, cycle[3])); got != "ongoing" {
		t.Errorf("after decode: %s, want ongoing (fresh history)", got)
	}
}

// TestTraining covers the training room (C2).
func TestTraining(t *testing.T) {
	p := start(t, "training")
	p = play(t, p, "c3-d3", "d3-e3")
	if p.ToMove() != engine.First || p.MoveNumber() != 3 {
		t.Errorf("training: %s to move at move %d, want white at move 3", seatName(p.ToMove()), p.MoveNumber())
	}
	near := setup(t, "training", 30, "f6 g6 h6 f7 g7 h7 g8 h8 e8", "")
	done := play(t, near, "e8-f8")
	if got := outcomeOf(done); got != "white wins (completed)" {
		t.Errorf("filled the opposite home: %s, want white wins (completed)", got)
	}
	if done.MoveNumber() != 31 {
		t.Errorf("moves taken %d, want 31", done.MoveNumber())
	}
	limit := setup(t, "training", 79, "a1 b1 c1 a2 b2 c2 a3 b3 c4", "")
	if got := outcomeOf(play(t, limit, "c4-c5")); got != "draw (move-limit)" {
		t.Errorf("training at move 80: %s, want draw (move-limit)", got)
	}
}

// TestBadInput covers the bad input: clear errors, never a panic.
func TestBadInput(t *testing.T) {
	p := start(t, "classic-3x3")
	syntax := []struct {
		give   string
		offset int
	}{
		{"", 0}, {"c3", 2}, {"c3-", 3}, {"c3--d3", 3}, {"c3 d3", 2}, {"C3-D3", 0},
		{"z1-a1", 0}, {"c0-c1", 1}, {"c17-c1", 2}, {"c3-d3x", 5}, {"c3-i3", 3}, {"a9-a8", 1}, {"c03-c4", 1},
		{"c10-c1", 2}, {"c3-c10", 5}, {"c3-c9", 4}, {"c100-c1", 2},
	}
	for _, tt := range syntax {
		_, err := p.ParsePly(tt.give)
		var se *engine.SyntaxError
		if !errors.As(err, &se) || se.Offset != tt.offset {
			t.Errorf("ParsePly(%q) = %v, want a syntax error at offset %d", tt.give, err, tt.offset)
		}
	}
	// The messages name this board's files and ranks (8×8: a–h, 1–8), not
	// the notation's 16×16 grid.
	for give, want := range map[string]string{
		"k3-c3": "file k is off the 8×8 board (files a–h)",
		"c9-c8": "square c9 is off the 8×8 board (ranks 1–8)",
		"c3-":   "expected a square (files a–h, ranks 1–8)",
		"3c-c4": "want a file letter a–h, got '3'",
		"ç3-c4": "want a file letter a–h, got 'ç'",
		"c-c4":  "want a rank 1–8 after the file letter",
	} {
		_, err := p.ParsePly(give)
		var se *engine.SyntaxError
		if !errors.As(err, &se) || se.Msg != want {
			t.Errorf("ParsePly(%q) = %v, want the message %q", give, err, want)
		}
	}
	long := "a1"
	for range 64 {
		long += "-a1"
	}
	if _, err := ParseMove(long); err == nil {
		t.Errorf("a 65-square path parsed")
	}
	offBoard, _ := NewMove(mustSquare(t, "c3"), mustSquare(t, "i3"))
	if _, err := p.Play(offBoard); !isRule(err, "C1") {
		t.Errorf("Play(c3-i3) = %v, want a C1 rule error", err)
	}
	if _, err := p.Play(nil); !isRule(err, "C1") {
		t.Errorf("Play(nil) = %v, want a C1 rule error", err)
	}
	if _, err := p.Play(Move{}); !isRule(err, "C1") {
		t.Errorf("Play(Move{}) = %v, want a C1 rule error", err)
	}
	if _, err := New("classic-9x9", ""); !errors.Is(err, engine.ErrUnknownVariant) {
		t.Errorf("New(classic-9x9) = %v, want ErrUnknownVariant", err)
	}
	if _, err := New("classic-3x3", "x"); !errors.Is(err, engine.ErrBadSetup) {
		t.Errorf("New with a setup = %v, want ErrBadSetup", err)
	}
	over := play(t, setup(t, "classic-3x3", 80, "d3 d2 e1 f1 g1 h1 e4 f4 g4", "c2 b3 a7 b7 c7 d7 a8 b8 e6"), "d3-c3")
	if _, err := over.Play(Move{}); !errors.Is(err, engine.ErrGameOver) {
		t.Errorf("Play after the end = %v, want ErrGameOver", err)
	}
	if len(over.Legal()) != 0 {
		t.Errorf("Legal after the end = %v, want none", over.Legal())
	}
}

func isRule(err error, rule string) bool {
	var re *engine.RuleError
	return errors.As(err, &re) && re.Rule == rule && errors.Is(err, engine.ErrIllegalMove)
}
