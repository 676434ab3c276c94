package quoridor

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// checkBoard checks the board b against its position computed afresh:
// the legal plies and their count, the closing sets of the wall lattice
// against those Decode builds, and every wall that neither overlaps nor
// crosses another against a flood fill of the board for each pawn
// (wallError), which knows nothing of the lattice.
func checkBoard(t *testing.T, b *board) {
	t.Helper()
	fresh, err := DecodePosition(b.Encode())
	if err != nil {
		t.Fatalf("%s: %v", b.Encode(), err)
	}
	fresh.last = b.last
	if fresh != b.Position {
		t.Fatalf("%s: the board's position differs from its decoded form (closing sets %#x/%#x, decoded %#x/%#x)",
			b.Encode(), b.closeH, b.closeV, fresh.closeH, fresh.closeV)
	}
	want := fresh.LegalMoves(nil)
	var buf [maxMoves + 8]Move
	got := b.legalMoves(buf[:0])
	if !slices.Equal(got, want) {
		t.Fatalf("%s: board lists %d plies %v, position %d %v", b.Encode(), len(got), got, len(want), want)
	}
	if n := b.countLegal(); n != uint64(len(want)) {
		t.Fatalf("%s: board counts %d plies, want %d", b.Encode(), n, len(want))
	}
	if b.wallsLeft[b.side()] == 0 {
		return
	}
	hs, vs := b.freeWalls()
	for _, m := range appendWalls(nil, hs, vs) {
		flood := b.wallError(m) == nil
		if listed := slices.Contains(got, m); listed != flood {
			t.Fatalf("%s: wall %s listed %v, flood fill says legal %v", b.Encode(), m, listed, flood)
		}
	}
}

// TestBoardRandomGames plays random games on a board, forward and back:
// at every ply the board agrees with its position computed afresh, and
// unmake restores the position exactly, so paths kept across plies (and
// found deeper, then kept on the way back) never let an illegal wall in
// nor keep a legal one out (Q3.4).
func TestBoardRandomGames(t *testing.T) {
	t.Parallel()
	games := 300
	if testing.Short() {
		games = 30
	}
	rng := rand.New(rand.NewPCG(7, 21))
	for range games {
		start := mustStart(t)
		b := newBoard(start)
		var stack []Move
		var undos []undo
		for !b.over() && len(stack) < 160 {
			checkBoard(t, b)
			var buf [maxMoves + 8]Move
			legal := b.legalMoves(buf[:0])
			// Walls more often than pawn moves, to build mazes.
			m := legal[rng.IntN(len(legal))]
			if rng.IntN(3) == 0 {
				m = legal[rng.IntN(min(len(legal), 5))]
			}
			before := b.Position
			u := b.make(m)
			if want := before.apply(m); b.Position != want {
				t.Fatalf("%s: make(%s) gives %s, want %s", before.Encode(), m, b.Encode(), want.Encode())
			}
			// Now and then look one ply deeper and come back.
			if !b.over() && rng.IntN(4) == 0 {
				var buf2 [maxMoves + 8]Move
				kids := b.legalMoves(buf2[:0])
				k := kids[rng.IntN(len(kids))]
				mid := b.Position
				u2 := b.make(k)
				if !b.over() {
					checkBoard(t, b)
				}
				b.unmake(k, &u2)
				if b.Position != mid {
					t.Fatalf("unmake(%s) gives %s, want %s", k, b.Encode(), mid.Encode())
				}
			}
			stack = append(stack, m)
			undos = append(undos, u)
		}
		for i := len(stack) - 1; i >= 0; i-- {
			b.unmake(stack[i], &undos[i])
			if i%5 == 0 {
				checkBoard(t, b)
			}
		}
		if b.Position != start {
			t.Fatalf("after taking every ply back: %s, want the start", b.Encode())
		}
	}
}
