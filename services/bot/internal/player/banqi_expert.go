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
	var b bScan
	b.scan(&s.v)
	material, rest := b.static(moves)
	stand := bFade(&s.v, material+rest)
	score := bQuiescence(&s.v, moves, stand, material, rest, -search.Win, search.Win, bQuiesce, &buf)
	mine, theirs := b.winnable()
	if (score > 0 && !mine) || (score < 0 && !theirs) {
		// The side ahead cannot win: at best a draw (B5.2).
		score /= bHopeless
	}
	return score
}

// bHopeless divides the score of a side ahead that cannot win
// (bScan.winnable).
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

// bQuiescence returns the score of v for the side to move, once the
// captures are resolved: stand (its static score) if it stands pat, or the
// best capture, searched to depth plies of captures (fail-soft
// alpha-beta). moves are v's legal plies (nil at the last ply, which
// reads its captures off the board: bBestVictim); material and rest the two parts
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
		victim := bBestVictim(v)
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
			var nm []banqi.Move // the last ply reads the board, not the plies
			if depth > 2 {
				nm = next.LegalMoves(buf[depth-1][:0])
			}
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

// bBestVictim is the value (bValue) of the most valuable piece that the
// side to move in v can capture, -1 if it can capture none: the best of
// its legal captures, read off the board.
func bBestVictim(v *banqi.View) int {
	me := v.Colour(v.ToMove())
	if me == banqi.NoColour {
		return -1
	}
	best := -1
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		p := v.Cell(sq).Piece()
		if p == banqi.NoPiece || p.Colour() != me {
			continue
		}
		k := p.Kind()
		for d, t := range bNeighbours[sq] {
			if k == banqi.Cannon {
				t = bCannonLine(v, sq, d)
			}
			if t == banqi.NoSquare {
				continue
			}
			if x := v.Cell(t).Piece(); x != banqi.NoPiece && x.Colour() != me && canTake(k, x.Kind()) {
				best = max(best, bValue[x.Kind()])
			}
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

// bScan is what the expert's evaluation reads off a view's board, in one
// pass: the material, the pieces of each side, the kinds each side has left
// and the squares each side's pieces threaten. Index 0 is the side to move
// (me), 1 its opponent.
type bScan struct {
	v        *banqi.View
	me       banqi.Colour
	material int // for me: every piece not captured, face down or not
	// freeNextTo is the number of empty squares next to the opponent's
	// revealed pieces, counted once per piece (its mobility).
	freeNextTo int
	kinds      [2]uint16 // the kinds left, revealed or face down, as bits 1<<kind
	down       [2]int    // face-down pieces
	pieces     [2][16]banqi.Square
	n          [2]int
	// chase[i][sq] are the kinds (bits 1<<kind) that a piece of side i
	// other than a cannon, standing next to sq, can capture (B4.1).
	chase [2][banqi.NumSquares]uint16
}

// scan reads v's board into b.
func (b *bScan) scan(v *banqi.View) {
	*b = bScan{v: v, me: v.Colour(v.ToMove())}
	if b.me == banqi.NoColour {
		return
	}
	for _, p := range bPieces {
		n := v.FaceDownCount(p)
		if n == 0 {
			continue
		}
		i := b.side(p)
		b.kinds[i] |= 1 << p.Kind()
		b.down[i] += n
		b.material += (1 - 2*i) * n * bValue[p.Kind()]
	}
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		p := v.Cell(sq).Piece()
		if p == banqi.NoPiece {
			continue
		}
		i, k := b.side(p), p.Kind()
		b.kinds[i] |= 1 << k
		b.material += (1 - 2*i) * bValue[k]
		if b.n[i] < len(b.pieces[i]) {
			b.pieces[i][b.n[i]] = sq
			b.n[i]++
		}
		for _, t := range bNeighbours[sq] {
			if t == banqi.NoSquare {
				continue
			}
			if k != banqi.Cannon {
				b.chase[i][t] |= bPrey[k]
			}
			if i == 1 && v.Cell(t) == banqi.Empty {
				b.freeNextTo++
			}
		}
	}
}

// side is 0 for a piece of the side to move, 1 for its opponent's.
func (b *bScan) side(p banqi.Piece) int {
	if p.Colour() == b.me {
		return 0
	}
	return 1
}

// winnable reports whether the side to move (mine) and its opponent
// (theirs) can still win: whether for every kind the other side has left,
// revealed or face down, it has a piece that can capture it. A side that
// cannot capture some enemy piece never takes them all (B5.1): a lone
// general facing no soldier, say, is never captured.
func (b *bScan) winnable() (mine, theirs bool) {
	if b.me == banqi.NoColour {
		return true, true
	}
	takesAll := func(att, def uint16) bool {
		for k := banqi.General; k <= banqi.Soldier; k++ {
			if def&(1<<k) != 0 && att&bCapturers[k] == 0 {
				return false
			}
		}
		return true
	}
	return takesAll(b.kinds[0], b.kinds[1]), takesAll(b.kinds[1], b.kinds[0])
}

// bPrey are, for each kind, the kinds (as bits 1<<kind) that it can
// capture (canTake).
var bPrey = func() (c [banqi.Soldier + 1]uint16) {
	for a := banqi.General; a <= banqi.Soldier; a++ {
		for k := banqi.General; k <= banqi.Soldier; k++ {
			if canTake(a, k) {
				c[a] |= 1 << k
			}
		}
	}
	return c
}()

// static is the expert's static score for the side to move, whose legal
// plies are moves, in two parts: material (every piece not captured, face
// down or not) and the rest (mobility, the conversion terms of the side
// ahead). bFade scales their sum by the B5.2 clock.
func (b *bScan) static(moves []banqi.Move) (material, rest int) {
	if b.me == banqi.NoColour {
		return 0, 0
	}
	score := -bMobility * b.freeNextTo
	for _, m := range moves {
		if m.Kind() != banqi.KindReveal {
			score += bMobility
		}
	}
	if b.material != 0 {
		score += b.conversion() + b.cornering()
	}
	return b.material, score
}

// lead is the index of the side ahead in material (b.material != 0).
func (b *bScan) lead() int {
	if b.material < 0 {
		return 1
	}
	return 0
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

// conversion is the hard bot's conversion term (conversion) for the side
// to move, read off the scan.
func (b *bScan) conversion() int {
	l := b.lead()
	bonus := 0
	for _, a := range b.pieces[l][:b.n[l]] {
		prey := bPrey[b.v.Cell(a).Piece().Kind()]
		near := -1
		for _, t := range b.pieces[1-l][:b.n[1-l]] {
			if prey&(1<<b.v.Cell(t).Piece().Kind()) == 0 {
				continue
			}
			d := abs(a.File()-t.File()) + abs(a.Rank()-t.Rank())
			near = max(near, 10-d)
		}
		if near > 0 {
			bonus += bChase * near
		}
	}
	// The enemy's pieces gone: all it started with, less those left.
	gone := 16 - b.n[1-l] - b.down[1-l]
	bonus += bTrade * gone
	if l != 0 {
		return -bonus
	}
	return bonus
}

// cornering is the expert's trapping term for the side to move: the side
// ahead gains as the enemy pieces that one of its pieces can capture (B4.1;
// cannons aside) run out of escape squares — empty neighbours that no such
// piece guards — since on an open board one chaser never catches a runner.
func (b *bScan) cornering() int {
	l := b.lead()
	chase := &b.chase[l]
	score := 0
	for _, sq := range b.pieces[1-l][:b.n[1-l]] {
		bit := uint16(1) << b.v.Cell(sq).Piece().Kind()
		// Hunted: a chaser stands next to it or guards a square next to it.
		hunted := chase[sq]&bit != 0
		esc := 0
		for _, t := range bNeighbours[sq] {
			if t == banqi.NoSquare {
				continue
			}
			if b.v.Cell(t) != banqi.Empty {
				continue
			}
			if chase[t]&bit != 0 {
				hunted = true
			} else {
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
	if l != 0 {
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
