package player

import (
	"slices"

	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/services/bot/internal/search"
)

// The expert's Banqi evaluation (issue 20). Where expert-1 scored a leaf
// by its material plus half the best capture of the side to move, the
// expert resolves the captures at every leaf (a quiescence search over
// captures only), so that it neither walks a piece into a capture nor
// reveals a piece next to an enemy that takes it just past its horizon;
// and it presses a material lead: its pieces close in on the enemy pieces
// they can capture and take away their escape squares, and every
// advantage fades as the B5.2 clock runs, so the side ahead captures or
// reveals in time and the side behind plays for the draw.

// bQuiesce is how many plies of captures the expert resolves at a leaf: a
// capture and the recapture. Deeper costs more than it finds at the
// budgets we measured (4 plies: 30% against hard, 2 plies: 41%, 40 games of
// 50 ms each, reveals searched below the root).
const bQuiesce = 2

// bDecided is the score of a capture that leaves the opponent nothing
// (B5.1) inside the quiescence search: above any material, well inside
// search.WinBound (the search itself scores the ending exactly once it
// reaches it).
const bDecided = 20000

// bFadeFrom is the quiet-ply count (B5.2) after which the expert's
// advantage fades, to a quarter of itself at the draw.
const bFadeFrom = 80

// Weights of the expert's evaluation.
const (
	bMobility = 3  // per step or capture of the side to move; per free square next to an enemy piece
	bEscape   = 10 // per escape square of an enemy piece that a piece of the side ahead can capture
	bCornered = 40 // per such enemy piece with no escape square
)

// expertEval is the expert's evaluation of s for the side to move.
func expertEval(s *bState) int {
	var buf [bQuiesce + 1][96]banqi.Move
	moves := s.v.LegalMoves(buf[bQuiesce][:0])
	material, rest := bStatic(&s.v, moves)
	stand := bFade(&s.v, material+rest)
	score := bQuiescence(&s.v, moves, stand, material, rest, -search.Win, search.Win, bQuiesce, &buf)
	mine, theirs := bWinnable(&s.v)
	if (score > 0 && !mine) || (score < 0 && !theirs) {
		// The side ahead cannot win: at best a draw (B5.2).
		score /= bHopeless
	}
	return score
}

// bHopeless divides the score of a side ahead that cannot win (bWinnable).
// A variable for its test.
var bHopeless = 8

// bCapturers are, for each kind, the kinds (as bits 1<<kind) that can
// capture it (canTake: a cannon, given a screen, captures any).
var bCapturers = func() (c [banqi.Soldier + 1]uint16) {
	for k := banqi.General; k <= banqi.Soldier; k++ {
		for a := banqi.General; a <= banqi.Soldier; a++ {
			if canTake(a, k) {
				c[k] |= 1 << a
			}
		}
	}
	return c
}()

// bWinnable reports whether the side to move (mine) and its opponent
// (theirs) can still win: whether for every kind the other side has left,
// revealed or face down, it has a piece that can capture it. A side that
// cannot capture some enemy piece never takes them all (B5.1): a lone
// general facing no soldier, say, is never captured.
func bWinnable(v *banqi.View) (mine, theirs bool) {
	me := v.Colour(v.ToMove())
	if me == banqi.NoColour {
		return true, true
	}
	var kinds [2]uint16 // index 0: me
	for _, p := range bPieces {
		if v.FaceDownCount(p) > 0 {
			if p.Colour() == me {
				kinds[0] |= 1 << p.Kind()
			} else {
				kinds[1] |= 1 << p.Kind()
			}
		}
	}
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		if p := v.Cell(sq).Piece(); p != banqi.NoPiece {
			if p.Colour() == me {
				kinds[0] |= 1 << p.Kind()
			} else {
				kinds[1] |= 1 << p.Kind()
			}
		}
	}
	takesAll := func(att, def uint16) bool {
		for k := banqi.General; k <= banqi.Soldier; k++ {
			if def&(1<<k) != 0 && att&bCapturers[k] == 0 {
				return false
			}
		}
		return true
	}
	return takesAll(kinds[0], kinds[1]), takesAll(kinds[1], kinds[0])
}

// bQuiescence returns the score of v for the side to move, once the
// captures are resolved: stand (its static score) if it stands pat, or the
// best capture, searched to depth plies of captures (fail-soft
// alpha-beta). moves are v's legal plies; material and rest the two parts
// of its static score (bStatic). Below the first ply the static score is
// the material, kept up to date capture by capture, and the rest as it was
// at the first, seen from the other side: the captures decide the score,
// and the board need not be read again.
func bQuiescence(v *banqi.View, moves []banqi.Move, stand, material, rest, alpha, beta, depth int, buf *[bQuiesce + 1][96]banqi.Move) int {
	if depth == 0 || stand >= beta {
		return stand
	}
	best := stand
	alpha = max(alpha, stand)
	if depth == 1 {
		// The last ply: no reply is searched, so the best capture is the
		// most valuable victim's, and no position need be played. A
		// capture of the opponent's last piece is decided (B5.1); one that
		// leaves it pieces but no ply (blocked, nothing face down) is rare,
		// and the search finds it at its own nodes.
		victim := -1
		for _, m := range moves {
			if m.Kind() == banqi.KindCapture {
				victim = max(victim, bValue[v.Cell(m.To()).Piece().Kind()])
			}
		}
		switch {
		case victim < 0:
			return best
		case bPiecesLeft(v, v.Colour(v.ToMove()).Other()) == 1:
			return bDecided
		}
		return max(best, material+victim+rest)
	}
	// The captures, the most valuable victim first, then the least
	// valuable attacker.
	var caps [32]banqi.Move
	n := 0
	for _, m := range moves {
		if m.Kind() == banqi.KindCapture && n < len(caps) {
			caps[n] = m
			n++
		}
	}
	cs := caps[:n]
	slices.SortFunc(cs, func(a, b banqi.Move) int {
		va, vb := bValue[v.Cell(a.To()).Piece().Kind()], bValue[v.Cell(b.To()).Piece().Kind()]
		if va != vb {
			return vb - va
		}
		return bValue[v.Cell(a.From()).Piece().Kind()] - bValue[v.Cell(b.From()).Piece().Kind()]
	})
	for _, m := range cs {
		victim := bValue[v.Cell(m.To()).Piece().Kind()]
		next, err := v.PlayMove(m)
		if err != nil {
			continue
		}
		var score int
		if next.Outcome().Over() {
			score = bDecided // the opponent has no piece or no ply left (B5.1)
		} else {
			// The opponent's material after the capture, its rest as ours
			// at the first ply turned round.
			mat := -(material + victim)
			nm := next.LegalMoves(buf[depth-1][:0])
			score = -bQuiescence(&next, nm, mat-rest, mat, -rest, -beta, -alpha, depth-1, buf)
		}
		if score > best {
			best = score
		}
		if score > alpha {
			alpha = score
		}
		if alpha >= beta {
			break
		}
	}
	return best
}

// bPiecesLeft is how many pieces of colour c are left, revealed or face
// down.
func bPiecesLeft(v *banqi.View, c banqi.Colour) int {
	n := 0
	for k := banqi.General; k <= banqi.Soldier; k++ {
		n += v.FaceDownCount(banqi.MakePiece(c, k))
	}
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		if p := v.Cell(sq).Piece(); p != banqi.NoPiece && p.Colour() == c {
			n++
		}
	}
	return n
}

// bStatic is the expert's static score of v for the side to move, whose
// legal plies are moves, in two parts: material (every piece not captured,
// face down or not) and the rest (mobility, the conversion terms of the
// side ahead). bFade scales their sum by the B5.2 clock.
func bStatic(v *banqi.View, moves []banqi.Move) (material, rest int) {
	me := v.Colour(v.ToMove())
	if me == banqi.NoColour {
		return 0, 0
	}
	for _, p := range bPieces {
		n := v.FaceDownCount(p)
		if n == 0 {
			continue
		}
		if p.Colour() == me {
			material += n * bValue[p.Kind()]
		} else {
			material -= n * bValue[p.Kind()]
		}
	}
	score := 0
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		p := v.Cell(sq).Piece()
		if p == banqi.NoPiece {
			continue
		}
		if p.Colour() == me {
			material += bValue[p.Kind()]
			continue
		}
		material -= bValue[p.Kind()]
		// The opponent's mobility: empty squares next to its pieces.
		f, r := sq.File(), sq.Rank()
		for _, d := range [4][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}} {
			if t := banqi.SquareAt(f+d[0], r+d[1]); t.Valid() && v.Cell(t) == banqi.Empty {
				score -= bMobility
			}
		}
	}
	for _, m := range moves {
		if m.Kind() != banqi.KindReveal {
			score += bMobility
		}
	}
	if material != 0 {
		score += conversion(v, me, material) + cornering(v, me, material)
	}
	return material, score
}

// bFade scales score, v's static score, by the B5.2 clock.
func bFade(v *banqi.View, score int) int {
	// A draw by B5.2 scores 0: in the last plies before it every
	// advantage is worth less, so the side ahead captures or reveals to
	// keep it, and the side behind welcomes the clock. Earlier the clock
	// counts for nothing: a fade from the start would make a capture or a
	// reveal, which resets it, look bad to the side behind.
	if q := v.Quiet(); q > bFadeFrom {
		return score * (4*(banqi.PlyLimit-bFadeFrom) - 3*(q-bFadeFrom)) / (4 * (banqi.PlyLimit - bFadeFrom))
	}
	return score
}

// cornering is the expert's trapping term for the side whose colour is
// me, given material for me: the side ahead gains as the enemy pieces that
// one of its pieces can capture (B4.1; cannons aside) run out of escape
// squares — empty neighbours that no such piece guards — since on an open
// board one chaser never catches a runner.
func cornering(v *banqi.View, me banqi.Colour, material int) int {
	lead := me
	if material < 0 {
		lead = me.Other()
	}
	score := 0
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		x := v.Cell(sq).Piece()
		if x == banqi.NoPiece || x.Colour() == lead {
			continue
		}
		xk := x.Kind()
		hunted := false
		esc := 0
		f, r := sq.File(), sq.Rank()
		for _, d := range [4][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}} {
			t := banqi.SquareAt(f+d[0], r+d[1])
			if !t.Valid() {
				continue
			}
			if p := v.Cell(t).Piece(); p != banqi.NoPiece && p.Colour() == lead && p.Kind() != banqi.Cannon && canTake(p.Kind(), xk) {
				hunted = true
				continue
			}
			if v.Cell(t) != banqi.Empty {
				continue
			}
			guarded := false
			tf, tr := t.File(), t.Rank()
			for _, e := range [4][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}} {
				u := banqi.SquareAt(tf+e[0], tr+e[1])
				if !u.Valid() || u == sq {
					continue
				}
				if p := v.Cell(u).Piece(); p != banqi.NoPiece && p.Colour() == lead && p.Kind() != banqi.Cannon && canTake(p.Kind(), xk) {
					guarded, hunted = true, true
					break
				}
			}
			if !guarded {
				esc++
			}
		}
		if !hunted {
			continue
		}
		score -= bEscape * esc
		if esc == 0 {
			score += bCornered
		}
	}
	if lead != me {
		return -score
	}
	return score
}

// bDet is the expert's adapter once nothing is face down: no ply is a
// chance node, so the search runs its principal variation search and
// late-move reductions, which it skips for games with chance nodes.
type bDet struct{ g bGame }

func (d bDet) Moves(s *bState, dst []banqi.Move) []banqi.Move { return d.g.Moves(s, dst) }
func (d bDet) Play(s *bState, m banqi.Move) bState            { return d.g.Play(s, m) }
func (d bDet) Terminal(s *bState) (int, bool)                 { return d.g.Terminal(s) }
func (d bDet) Eval(s *bState) int                             { return d.g.Eval(s) }
func (d bDet) Hash(s *bState) uint64                          { return d.g.Hash(s) }
func (d bDet) Order(s *bState, moves []banqi.Move)            { d.g.Order(s, moves) }

// bExpertRefinements are the Banqi expert's search refinements.
var bExpertRefinements = search.Refinements{Killers: true, Reduce: 4, ChanceWidth: bChanceWidth}

// bChanceWidth bounds how far a reveal's result may score from the static
// evaluation before it, for the Star1 pruning of reveals.
const bChanceWidth = 400

// faceDown reports whether any piece of v is face down.
func faceDown(v *banqi.View) bool {
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		if v.Cell(sq) == banqi.FaceDown {
			return true
		}
	}
	return false
}
