package quoridor

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"tabuleiro.dev/pkg/engine"
)

// setup builds a standard position with the pawns on white and black, the
// given walls (Q1 notation, space-separated, any order), five walls left
// each, and side (0 white, 1 black) to move; the last ply is the other
// side's pawn move. It checks the position through Decode.
func setup(t *testing.T, white, black, walls string, side int) Position {
	t.Helper()
	p, err := NewPosition(Standard, "")
	if err != nil {
		t.Fatal(err)
	}
	p.pawns = [2]Square{mustSquare(t, white), mustSquare(t, black)}
	p.wallsLeft = [2]int8{5, 5}
	n := 0
	for w := range strings.FieldsSeq(walls) {
		m := mustMove(t, w)
		if err := conflict(p.hWalls, p.vWalls, m); err != nil {
			t.Fatalf("setup wall %s: %v", w, err)
		}
		p.addWall(m)
		n++
	}
	p.plies = int32(2*n + 2 + side)
	p.last = PawnTo(p.pawns[1-side])
	q, err := DecodePosition(p.Encode())
	if err != nil {
		t.Fatalf("setup: %v", err)
	}
	if q != p {
		t.Fatalf("setup: Decode(Encode(p)) = %s, want %s", q.Encode(), p.Encode())
	}
	return p
}

func mustSquare(t *testing.T, s string) Square {
	t.Helper()
	sq, err := ParseSquare(s)
	if err != nil {
		t.Fatal(err)
	}
	return sq
}

func mustMove(t *testing.T, s string) Move {
	t.Helper()
	m, err := ParseMove(s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func squaresString(ss []Square) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = s.String()
	}
	slices.Sort(out)
	return strings.Join(out, " ")
}

func TestPawnDestinations(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		white, black string
		walls        string
		side         int
		want         string
	}{
		{name: "Q2.1 four steps", white: "e5", black: "a9", want: "d5 e4 e6 f5"},
		{name: "Q2.1 corner of the board", white: "a1", black: "i9", want: "a2 b1"},
		{name: "Q2.1 edge of the board", white: "i5", black: "a9", want: "h5 i4 i6"},
		{name: "Q2.1 wall above", white: "e5", black: "a9", walls: "e5h", want: "d5 e4 f5"},
		{name: "Q2.1 wall above, anchored left", white: "e5", black: "a9", walls: "d5h", want: "d5 e4 f5"},
		{name: "Q2.1 wall to the right", white: "e5", black: "a9", walls: "e4v", want: "d5 e4 e6"},
		{name: "Q2.1 walls on three sides", white: "e5", black: "a9", walls: "e5h e4v d4v", want: "e4"},
		{name: "Q2.2 straight jump up", white: "e5", black: "e6", want: "d5 e4 e7 f5"},
		{name: "Q2.2 straight jump right", white: "e5", black: "f5", want: "d5 e4 e6 g5"},
		{name: "Q2.2 straight jump down, black moving", white: "e4", black: "e5", side: 1, want: "d5 e3 e6 f5"},
		{name: "Q2.2 straight jump left", white: "d5", black: "e5", side: 1, want: "c5 e4 e6 f5"},
		{name: "Q2.3 diagonals when a wall is behind", white: "e5", black: "e6", walls: "e6h", want: "d5 d6 e4 f5 f6"},
		{name: "Q2.3 diagonals at the board's edge", white: "e8", black: "e9", want: "d8 d9 e7 f8 f9"},
		{name: "Q2.3 black at the board's edge", white: "e1", black: "e2", side: 1, want: "d1 d2 e3 f1 f2"},
		{name: "Q2.3 one diagonal in the corner", white: "a8", black: "a9", want: "a7 b8 b9"},
		{name: "Q2.3 diagonal with a wall on one side", white: "e5", black: "e6", walls: "e6h d6v", want: "d5 e4 f5 f6"},
		{name: "Q2.3 wall on the other side", white: "e5", black: "e6", walls: "e6h e5v", want: "d5 d6 e4"},
		{name: "Q2.3 both diagonals walled", white: "e5", black: "e6", walls: "e6h d6v e5v", want: "d5 e4"},
		{name: "Q2.3 sideways jump blocked, diagonals", white: "e5", black: "f5", walls: "f4v", want: "d5 e4 e6 f4 f6"},
		{name: "Q2.4 no jump through a wall between the pawns", white: "e5", black: "e6", walls: "e5h", want: "d5 e4 f5"},
		{name: "Q2.4 no diagonal when the opponent is not adjacent", white: "e5", black: "e7", walls: "e7h", want: "d5 e4 e6 f5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := setup(t, tt.white, tt.black, tt.walls, tt.side)
			got := squaresString(p.PawnDestinations())
			if got != tt.want {
				t.Errorf("PawnDestinations() = %q, want %q\n%s", got, tt.want, p.Render())
			}
			var pawnMoves []string
			for _, m := range p.LegalMoves(nil) {
				if m.IsPawn() {
					pawnMoves = append(pawnMoves, m.String())
				}
			}
			slices.Sort(pawnMoves)
			if strings.Join(pawnMoves, " ") != got {
				t.Errorf("LegalMoves pawn plies = %v, want %q", pawnMoves, got)
			}
			if ref := refFrom(p).pawnMoves(); len(ref) != len(pawnMoves) {
				t.Errorf("reference pawn moves %v, fast %v", ref, pawnMoves)
			}
			for _, m := range p.LegalMoves(nil) {
				if !m.IsPawn() {
					continue
				}
				q, err := p.PlayMove(m)
				if err != nil {
					t.Fatalf("PlayMove(%s): %v", m, err)
				}
				if q.Pawn(seatOf(tt.side)) != m.To() {
					t.Errorf("after %s the pawn is on %s", m, q.Pawn(seatOf(tt.side)))
				}
			}
		})
	}
}

func TestIllegalPawnMoves(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		white, black string
		walls        string
		ply          string
		wantRule     string
	}{
		{name: "step through a wall", white: "e5", black: "a9", walls: "e5h", ply: "e6", wantRule: "Q2.1"},
		{name: "step onto the own square", white: "e5", black: "a9", ply: "e5", wantRule: "Q2.1"},
		{name: "far square", white: "e5", black: "a9", ply: "e8", wantRule: "Q2.1"},
		{name: "two squares with nobody to jump", white: "e5", black: "a9", ply: "e7", wantRule: "Q2.2"},
		{name: "jump with a wall behind the opponent", white: "e5", black: "e6", walls: "e6h", ply: "e7", wantRule: "Q2.2"},
		{name: "jump with a wall between the pawns", white: "e5", black: "e6", walls: "e5h", ply: "e7", wantRule: "Q2.2"},
		{name: "diagonal while the straight jump is legal", white: "e5", black: "e6", ply: "d6", wantRule: "Q2.3"},
		{name: "diagonal through a wall beside the opponent", white: "e5", black: "e6", walls: "e6h d6v", ply: "d6", wantRule: "Q2.3"},
		{name: "diagonal through a wall between the pawns", white: "e5", black: "e6", walls: "e5h", ply: "d6", wantRule: "Q2.3"},
		{name: "onto the opponent", white: "e5", black: "e6", ply: "e6", wantRule: "Q2.4"},
		{name: "diagonal with no opponent beside", white: "e5", black: "a9", ply: "f6", wantRule: "Q2.4"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := setup(t, tt.white, tt.black, tt.walls, 0)
			checkRule(t, p, tt.ply, tt.wantRule)
		})
	}
}

// checkRule plays ply at p and wants it refused for breaking rule.
func checkRule(t *testing.T, p Position, ply, rule string) {
	t.Helper()
	m := mustMove(t, ply)
	if slices.Contains(p.LegalMoves(nil), m) {
		t.Fatalf("%s is listed as legal", ply)
	}
	q, err := p.PlayMove(m)
	var re *engine.RuleError
	if !errors.As(err, &re) {
		t.Fatalf("PlayMove(%s) = %v, want a *engine.RuleError", ply, err)
	}
	if !errors.Is(err, engine.ErrIllegalMove) {
		t.Errorf("PlayMove(%s) error does not wrap ErrIllegalMove", ply)
	}
	if re.Rule != rule || re.Ply != ply || re.Msg == "" {
		t.Errorf("PlayMove(%s) = %+v, want rule %s", ply, re, rule)
	}
	if q != (Position{}) {
		t.Errorf("PlayMove(%s) returned a position with its error", ply)
	}
	if _, err := p.Play(m); !errors.As(err, &re) || re.Rule != rule {
		t.Errorf("Play(%s) = %v, want rule %s", ply, err, rule)
	}
}

func TestWalls(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name         string
		white, black string
		walls        string
		side         int
		ply          string
		wantRule     string // "" for legal
	}{
		{name: "Q3.2 same groove, same anchor", white: "e1", black: "e9", walls: "e3h", ply: "e3h", wantRule: "Q3.2"},
		{name: "Q3.2 horizontal overlap from the left", white: "e1", black: "e9", walls: "e3h", ply: "d3h", wantRule: "Q3.2"},
		{name: "Q3.2 horizontal overlap from the right", white: "e1", black: "e9", walls: "e3h", ply: "f3h", wantRule: "Q3.2"},
		{name: "Q3.2 vertical overlap below", white: "e1", black: "e9", walls: "e4v", ply: "e3v", wantRule: "Q3.2"},
		{name: "Q3.2 vertical overlap above", white: "e1", black: "e9", walls: "e4v", ply: "e5v", wantRule: "Q3.2"},
		{name: "Q3.2 horizontal walls end to end", white: "e1", black: "e9", walls: "e3h", ply: "g3h"},
		{name: "Q3.2 horizontal walls in adjacent grooves", white: "e1", black: "e9", walls: "e3h", ply: "e4h"},
		{name: "Q3.2 vertical walls end to end", white: "e1", black: "e9", walls: "e4v", ply: "e6v"},
		{name: "Q3.3 crossing walls", white: "e1", black: "e9", walls: "e3h", ply: "e3v", wantRule: "Q3.3"},
		{name: "Q3.3 crossing walls, other order", white: "e1", black: "e9", walls: "e3v", ply: "e3h", wantRule: "Q3.3"},
		{name: "Q3.3 T touching from above", white: "e1", black: "e9", walls: "e3h", ply: "e4v"},
		{name: "Q3.3 T touching from below", white: "e1", black: "e9", walls: "e3h", ply: "e2v"},
		{name: "Q3.3 T touching at the end", white: "e1", black: "e9", walls: "e3h", ply: "f3v"},
		{name: "Q3.3 T touching at the left end", white: "e1", black: "e9", walls: "e3h", ply: "d3v"},
		{name: "Q3.4 sealing the pawn to move", white: "a1", black: "e9", walls: "a1h", ply: "b1v", wantRule: "Q3.4"},
		{name: "Q3.4 sealing the pawn not moving", white: "b1", black: "e9", walls: "a1h", side: 1, ply: "b1v", wantRule: "Q3.4"},
		{name: "Q3.4 sealing black", white: "e1", black: "i9", walls: "h8h", ply: "g8v", wantRule: "Q3.4"},
		{name: "Q3.4 sealing black, black placing", white: "e1", black: "h9", walls: "h8h", side: 1, ply: "g8v", wantRule: "Q3.4"},
		{name: "Q3.4 closing a box with no pawn inside", white: "e1", black: "e9", walls: "a1h", ply: "b1v"},
		{name: "Q3.4 cutting the shortest path only", white: "e1", black: "e9", walls: "a1h c1h f1h", ply: "h1h"},
		{name: "Q3.4 sealing a long corridor", white: "e1", black: "e9", walls: "a1h c1h e1h g1h", ply: "h1v", wantRule: "Q3.4"},
		{name: "Q3.2 vertical overlap at a corridor's end", white: "e1", black: "e9", walls: "a1h c1h e1h g1h h2v", ply: "h1v", wantRule: "Q3.2"},
		{name: "Q3.4 leaving one gap", white: "e1", black: "e9", walls: "a1h c1h e1h h2v", ply: "g2h"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := setup(t, tt.white, tt.black, tt.walls, tt.side)
			m := mustMove(t, tt.ply)
			legal := slices.Contains(p.LegalMoves(nil), m)
			refLegal := slices.Contains(refFrom(p).legal(), tt.ply)
			if legal != refLegal {
				t.Errorf("fast generator says legal=%v, reference %v", legal, refLegal)
			}
			if tt.wantRule != "" {
				checkRule(t, p, tt.ply, tt.wantRule)
				var re *engine.RuleError
				if err := p.CanPlaceWall(m); !errors.As(err, &re) || re.Rule != tt.wantRule {
					t.Errorf("CanPlaceWall(%s) = %v, want rule %s", tt.ply, err, tt.wantRule)
				}
				return
			}
			if !legal {
				t.Errorf("%s is not listed as legal", tt.ply)
			}
			if err := p.CanPlaceWall(m); err != nil {
				t.Errorf("CanPlaceWall(%s) = %v", tt.ply, err)
			}
			q, err := p.PlayMove(m)
			if err != nil {
				t.Fatalf("PlayMove(%s) = %v", tt.ply, err)
			}
			if !q.HasWall(m) || q.WallsLeft(seatOf(tt.side)) != 4 || q.LastMove() != m || q.Plies() != p.Plies()+1 {
				t.Errorf("after %s: %s", tt.ply, q.Encode())
			}
			if q.ToMove() != seatOf(1-tt.side) {
				t.Errorf("after %s: %s to move", tt.ply, q.ToMove())
			}
		})
	}
}

func TestNoWallsLeft(t *testing.T) {
	t.Parallel()
	p, err := DecodePosition("standard e2 e8 0/3 - w 2 e8") // Q3.1
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range p.LegalMoves(nil) {
		if m.IsWall() {
			t.Errorf("white has no walls but %s is listed", m)
		}
	}
	checkRule(t, p, "e5h", "Q3.1")
	q, err := p.PlayMove(mustMove(t, "e3"))
	if err != nil {
		t.Fatal(err)
	}
	if n := len(q.LegalMoves(nil)); n != 4+128 {
		t.Errorf("black with 3 walls has %d legal plies, want %d", n, 4+128)
	}
}

func TestPublishedCounts(t *testing.T) {
	t.Parallel()
	// Published facts (shared/real-games/README.md): both players without
	// walls have 3 legal plies at the start and 4 after e2 e8.
	p, err := DecodePosition("standard e1 e9 0/0 - w 0 -")
	if err != nil {
		t.Fatal(err)
	}
	if got := p.CountLegal(); got != 3 {
		t.Errorf("start without walls: %d legal plies, want 3", got)
	}
	for _, s := range []string{"e2", "e8"} {
		if p, err = p.PlayMove(mustMove(t, s)); err != nil {
			t.Fatal(err)
		}
	}
	if got := p.CountLegal(); got != 4 {
		t.Errorf("after e2 e8 without walls: %d legal plies, want 4", got)
	}
	start, err := NewPosition(Standard, "")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"d1", "f1", "e2"}
	got := start.LegalMoves(nil)
	if len(got) != 131 {
		t.Errorf("start: %d legal plies, want 131", len(got))
	}
	for _, w := range want {
		if !slices.Contains(got, mustMove(t, w)) {
			t.Errorf("start: %s missing", w)
		}
	}
}

func TestGoal(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		white      string
		black      string
		side       int
		ply        string
		wantWinner engine.Seat
	}{
		{name: "white reaches rank 9", white: "e8", black: "a5", ply: "e9", wantWinner: engine.First},
		{name: "white reaches rank 9 by a diagonal", white: "e8", black: "e9", ply: "d9", wantWinner: engine.First},
		{name: "black reaches rank 1", white: "a5", black: "c2", side: 1, ply: "c1", wantWinner: engine.Second},
		{name: "black reaches rank 1 by a jump", white: "c2", black: "c3", side: 1, ply: "c1", wantWinner: engine.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, v := range []string{Standard, Limit200} {
				p := setup(t, tt.white, tt.black, "", tt.side)
				p.variant, _ = variantNumber(v)
				if p.Outcome().Over() {
					t.Fatalf("%s: over before the ply", v)
				}
				q, err := p.PlayMove(mustMove(t, tt.ply))
				if err != nil {
					t.Fatal(err)
				}
				if got, want := q.Outcome(), engine.WinFor(tt.wantWinner, engine.ReasonGoal); got != want {
					t.Errorf("%s: Outcome() = %v, want %v", v, got, want)
				}
				checkOver(t, q)
			}
		})
	}
}

// checkOver wants every ply refused with ErrGameOver and nothing to move.
func checkOver(t *testing.T, p Position) {
	t.Helper()
	if p.ToMove() != engine.NoSeat {
		t.Errorf("ToMove() = %v after the end", p.ToMove())
	}
	if n := len(p.LegalMoves(nil)); n != 0 || p.CountLegal() != 0 || len(p.Legal()) != 0 || len(p.PawnDestinations()) != 0 {
		t.Errorf("%d legal plies after the end", n)
	}
	if p.Perft(3) != 1 {
		t.Errorf("Perft(3) = %d after the end, want 1", p.Perft(3))
	}
	for _, s := range []string{"a1", "e5", "e5h"} {
		if _, err := p.PlayMove(mustMove(t, s)); !errors.Is(err, engine.ErrGameOver) {
			t.Errorf("PlayMove(%s) after the end = %v, want ErrGameOver", s, err)
		}
	}
	if err := p.CanPlaceWall(mustMove(t, "e5h")); !errors.Is(err, engine.ErrGameOver) {
		t.Errorf("CanPlaceWall after the end = %v, want ErrGameOver", err)
	}
	if q, err := DecodePosition(p.Encode()); err != nil || q != p {
		t.Errorf("Decode(Encode()) = %v, %v", q.Encode(), err)
	}
}

// shuffle plays n plies from the start: white e1-d1-e1…, black e9-d9-e9….
func shuffle(t *testing.T, variant string, n int) Position {
	t.Helper()
	p, err := NewPosition(variant, "")
	if err != nil {
		t.Fatal(err)
	}
	plies := [4]string{"d1", "d9", "e1", "e9"}
	for i := range n {
		if p, err = p.PlayMove(mustMove(t, plies[i%4])); err != nil {
			t.Fatalf("ply %d: %v", i+1, err)
		}
	}
	return p
}

func TestPlyLimit(t *testing.T) {
	t.Parallel()
	// Q4: limit200 is drawn once 200 plies are played without a winner.
	p := shuffle(t, Limit200, 199)
	if p.Outcome().Over() {
		t.Fatalf("limit200 over after 199 plies: %v", p.Outcome())
	}
	q, err := p.PlayMove(mustMove(t, "e9"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := q.Outcome(), engine.DrawBy(engine.ReasonPlyLimit); got != want {
		t.Errorf("limit200 after 200 plies: %v, want %v", got, want)
	}
	checkOver(t, q)
	if s := shuffle(t, Standard, 240); s.Outcome().Over() || s.CountLegal() != 131 {
		t.Errorf("standard after 240 plies: %v, %d legal", s.Outcome(), s.CountLegal())
	}
	// A goal on the 200th ply is a win, not a draw.
	w, err := DecodePosition("limit200 e4 e2 7/8 a1h,c1h,f1h,h1h,a3h b 199 e4")
	if err != nil {
		t.Fatal(err)
	}
	if w, err = w.PlayMove(mustMove(t, "e1")); err != nil {
		t.Fatal(err)
	}
	if got, want := w.Outcome(), engine.WinFor(engine.Second, engine.ReasonGoal); got != want {
		t.Errorf("goal at ply 200: %v, want %v", got, want)
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	if _, err := New("barreira", ""); !errors.Is(err, engine.ErrUnknownVariant) {
		t.Errorf("New(barreira) = %v, want ErrUnknownVariant", err)
	}
	if _, err := New(Standard, "x"); !errors.Is(err, engine.ErrBadSetup) {
		t.Errorf("New with a setup = %v, want ErrBadSetup", err)
	}
	for _, v := range Variants() {
		p, err := New(v.ID, "")
		if err != nil {
			t.Fatal(err)
		}
		if p.Variant() != v || p.ToMove() != engine.First || p.Plies() != 0 || p.Outcome().Over() {
			t.Errorf("New(%s): %+v to move %v", v.ID, p.Variant(), p.ToMove())
		}
		if got, want := p.Encode(), v.ID+" e1 e9 10/10 - w 0 -"; got != want {
			t.Errorf("New(%s).Encode() = %q, want %q", v.ID, got, want)
		}
		if p.View(engine.Second) != engine.View(p) || p.SeatName(engine.First) != "white" || p.SeatName(engine.Second) != "black" {
			t.Errorf("New(%s): view or seat names wrong", v.ID)
		}
		if v.Players != 2 || v.Draws || v.DefaultBaseMS != 180000 || v.DefaultIncrementMS != 2000 || v.Game != engine.Quoridor {
			t.Errorf("variant %+v", v)
		}
	}
}

// A refused wall names the wall it meets, and the same wall once: the
// error of e3h on e3h is not "illegal ply e3h: the wall overlaps the wall
// e3h (Q3.2)".
func TestWallConflictNamesTheOtherWall(t *testing.T) {
	t.Parallel()
	p := setup(t, "e1", "e9", "e3h e5v", 0)
	for _, tt := range []struct{ ply, want string }{
		{"e3h", "illegal ply e3h: that wall is already on the board (Q3.2)"},
		{"d3h", "illegal ply d3h: the wall overlaps the wall e3h (Q3.2)"},
		{"e5h", "illegal ply e5h: the wall crosses the wall e5v (Q3.3)"},
	} {
		_, err := p.PlayMove(mustMove(t, tt.ply))
		if err == nil || err.Error() != tt.want {
			t.Errorf("PlayMove(%s) = %v, want %q", tt.ply, err, tt.want)
		}
	}
}
