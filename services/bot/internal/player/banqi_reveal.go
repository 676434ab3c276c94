package player

import "tabuleiro.dev/pkg/engine/banqi"

// The expert's reveal policy (issue 20). A reveal turns up any face-down
// piece, in proportion to the face-down counts (B6), and the opponent
// moves next: a piece of ours turned up next to an enemy that can take it
// is lost, an enemy piece turned up next to ours that it can take takes
// one. bRevealScore weighs those first consequences over the hidden-piece
// distribution, so that the search tries the likeliest good reveals first,
// keeps only the best few below the root and, at the root of an opening
// full of face-down pieces, only a handful beside the steps and captures:
// the search then reaches a ply deeper in the same time.

// bNeighbours are each square's orthogonal neighbours, NoSquare off the
// board.
var bNeighbours = func() (n [banqi.NumSquares][4]banqi.Square) {
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		f, r := sq.File(), sq.Rank()
		for d, off := range [4][2]int{{0, -1}, {-1, 0}, {1, 0}, {0, 1}} {
			n[sq][d] = banqi.SquareAt(f+off[0], r+off[1])
		}
	}
	return n
}()

// bCannonLine returns, looking from sq in direction d, the first piece
// beyond exactly one screen of any colour, face down or not (B4.2): the
// square a cannon on sq could capture on, or that a cannon there could
// capture sq from. NoSquare if there is none or it is face down.
func bCannonLine(v *banqi.View, sq banqi.Square, d int) banqi.Square {
	screen := false
	for t := bNeighbours[sq][d]; t != banqi.NoSquare; t = bNeighbours[t][d] {
		c := v.Cell(t)
		if c == banqi.Empty {
			continue
		}
		if !screen {
			screen = true
			continue
		}
		if c == banqi.FaceDown {
			return banqi.NoSquare
		}
		return t
	}
	return banqi.NoSquare
}

// bTakes reports whether a piece of kind a captures an adjacent enemy of
// kind b by rank (B4.1): canTake but for the cannon, which captures only
// over a screen (B4.2).
func bTakes(a, b banqi.Kind) bool {
	return a != banqi.Cannon && canTake(a, b)
}

// bRevealScore is the expected first consequence, for the side to move
// (colour me), of revealing the face-down square sq, in bValue units: over
// the face-down pieces, each as likely as its count, a piece of ours that
// an enemy piece (next to it, or a cannon over a screen) can take is lost;
// one that threatens an enemy piece gains a little (the enemy moves first
// and may flee); an enemy piece that can take one of ours takes the best;
// one that ours can take gains half its worth. Zero before the colours are
// fixed, and for a reveal away from every revealed piece.
func bRevealScore(v *banqi.View, me banqi.Colour, sq banqi.Square) int {
	if me == banqi.NoColour {
		return 0
	}
	// The revealed pieces next to sq, and those a cannon on sq could
	// capture; the cannons that could capture on sq.
	var adj, line [4]banqi.Piece
	var myCannonOn, enemyCannonOn bool
	na, nl := 0, 0
	for d := range 4 {
		if t := bNeighbours[sq][d]; t != banqi.NoSquare {
			if p := v.Cell(t).Piece(); p != banqi.NoPiece {
				adj[na] = p
				na++
			}
		}
		if t := bCannonLine(v, sq, d); t != banqi.NoSquare {
			p := v.Cell(t).Piece()
			line[nl] = p
			nl++
			if p.Kind() == banqi.Cannon {
				if p.Colour() == me {
					myCannonOn = true
				} else {
					enemyCannonOn = true
				}
			}
		}
	}
	if na == 0 && nl == 0 {
		return 0
	}
	total, score := 0, 0
	for _, p := range bPieces {
		n := v.FaceDownCount(p)
		if n == 0 {
			continue
		}
		total += n
		k := p.Kind()
		// attacked: an opposing piece can take p on sq; prey: the best
		// opposing piece p can take from sq.
		attacked, prey := false, 0
		if p.Colour() == me {
			attacked = enemyCannonOn
		} else {
			attacked = myCannonOn
		}
		for _, a := range adj[:na] {
			if a.Colour() == p.Colour() {
				continue
			}
			if bTakes(a.Kind(), k) {
				attacked = true
			}
			if bTakes(k, a.Kind()) {
				prey = max(prey, bValue[a.Kind()])
			}
		}
		if k == banqi.Cannon {
			for _, a := range line[:nl] {
				if a.Colour() != p.Colour() {
					prey = max(prey, bValue[a.Kind()])
				}
			}
		}
		var s int
		switch {
		case p.Colour() == me && attacked:
			s = -bValue[k]
		case p.Colour() == me:
			s = prey / 4
		case prey > 0:
			s = -prey
		case attacked:
			s = bValue[k] / 2
		}
		score += n * s
	}
	if total == 0 {
		return 0
	}
	return score / total
}

// bPolicyReveals filters the reveals of moves (v's legal plies, in
// canonical order) in place, keeping the keep best by bRevealScore for the
// side to move (ties in canonical order), best first, after the steps and
// captures, which it keeps in their order.
func bPolicyReveals(v *banqi.View, moves []banqi.Move, keep int) []banqi.Move {
	me := v.Colour(v.ToMove())
	var sqs [banqi.NumSquares]banqi.Square
	var scores [banqi.NumSquares]int
	nr, n := 0, 0
	for _, m := range moves {
		if m.Kind() != banqi.KindReveal {
			moves[n] = m
			n++
			continue
		}
		if nr < len(sqs) {
			sqs[nr], scores[nr] = m.From(), bRevealScore(v, me, m.From())
			nr++
		}
	}
	// Selection sort of the best keep: keep is small.
	for i := 0; i < min(keep, nr); i++ {
		b := i
		for j := i + 1; j < nr; j++ {
			if scores[j] > scores[b] {
				b = j
			}
		}
		if b != i {
			s, sc := sqs[b], scores[b]
			copy(sqs[i+1:b+1], sqs[i:b])
			copy(scores[i+1:b+1], scores[i:b])
			sqs[i], scores[i] = s, sc
		}
		moves[n] = banqi.RevealMove(sqs[i])
		n++
	}
	return moves[:n]
}
