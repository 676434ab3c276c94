package player

import (
	"context"
	"math/rand/v2"
	"slices"
	"time"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/pkg/engine/banqi"
	"tabuleiro.dev/services/bot/internal/search"
)

// bState is a Banqi view with its distance from the search's root, which
// bounds the reveals searched below the root (each is a chance node of up
// to 14 results).
type bState struct {
	v   banqi.View
	ply int8
}

// bValue is the worth of each kind (B4): the general is strongest but a
// soldier takes it; the cannon, which captures at a distance, is worth more
// than its rank.
var bValue = [...]int{banqi.General: 600, banqi.Advisor: 300, banqi.Elephant: 200, banqi.Chariot: 150,
	banqi.Horse: 100, banqi.Cannon: 250, banqi.Soldier: 70}

// bPieces are the 14 pieces, red then black.
var bPieces = func() []banqi.Piece {
	var ps []banqi.Piece
	for _, c := range []banqi.Colour{banqi.Red, banqi.Black} {
		for k := banqi.General; k <= banqi.Soldier; k++ {
			ps = append(ps, banqi.MakePiece(c, k))
		}
	}
	return ps
}()

// bGame is the search adapter for Banqi. It searches the view alone: a
// reveal is a chance node over the face-down pieces (B6).
type bGame struct {
	simple bool // easy's heuristic: material only
	// reveals is how many reveals are searched at nodes below the root,
	// the likeliest useful first (all at the root).
	reveals int
	// convert adds expert-1's terms for turning won material into a win
	// (see conversion) and fades the evaluation as the draw clock runs.
	convert bool
	// expert is the expert's evaluation (expertEval), which the table
	// keys by the draw clock too.
	expert bool
	// policy chooses the reveals kept below the root by the reveal policy
	// (bRevealScore), best first, instead of spread over the board; and,
	// with rootReveals > 0, keeps only that many at the root.
	policy      bool
	rootReveals int
}

func (g bGame) Moves(s *bState, dst []banqi.Move) []banqi.Move {
	dst = s.v.LegalMoves(dst)
	if g.policy {
		switch {
		case s.ply > 0 && g.reveals > 0:
			return bPolicyReveals(&s.v, dst, g.reveals)
		case s.ply == 0 && g.rootReveals > 0:
			return bPolicyReveals(&s.v, dst, g.rootReveals)
		}
	}
	if s.ply == 0 || g.reveals <= 0 {
		return dst
	}
	// Keep the steps and captures and the first few reveals in the
	// canonical order, spread over the board.
	n, kept := 0, 0
	reveals := 0
	for _, m := range dst {
		if m.Kind() == banqi.KindReveal {
			reveals++
		}
	}
	stride := max(1, reveals/g.reveals)
	for _, m := range dst {
		if m.Kind() == banqi.KindReveal {
			kept++
			if (kept-1)%stride != 0 || (kept-1)/stride >= g.reveals {
				continue
			}
		}
		dst[n] = m
		n++
	}
	return dst[:n]
}

func (bGame) Play(s *bState, m banqi.Move) bState {
	next, err := s.v.PlayMove(m)
	if err != nil {
		panic("player: listed Banqi ply does not play: " + err.Error())
	}
	return bState{v: next, ply: s.ply + 1}
}

// Outcomes turns a reveal into its chance node: each face-down piece, as
// many times as it is still face down (B6).
func (bGame) Outcomes(s *bState, m banqi.Move, dst []search.Outcome[bState]) []search.Outcome[bState] {
	if m.Kind() != banqi.KindReveal {
		return dst
	}
	for _, p := range bPieces {
		n := s.v.FaceDownCount(p)
		if n == 0 {
			continue
		}
		next, err := s.v.Reveal(m.From(), p)
		if err != nil {
			panic("player: Banqi reveal of a face-down piece fails: " + err.Error())
		}
		dst = append(dst, search.Outcome[bState]{State: bState{v: next, ply: s.ply + 1}, Weight: n})
	}
	return dst
}

func (bGame) Terminal(s *bState) (int, bool) {
	switch s.v.Outcome().Result {
	case engine.Win:
		return -search.Win, true // the side to move has no piece or no ply (B5.1)
	case engine.Draw:
		return 0, true
	}
	return 0, false
}

// Eval is material (every piece not captured counts for its colour, face
// down or not, since it will fight for its colour once revealed), mobility
// of the revealed pieces and, for the side to move, half its best capture.
func (g bGame) Eval(s *bState) int {
	if g.expert {
		return expertEval(s)
	}
	v := &s.v
	me := v.Colour(v.ToMove())
	if me == banqi.NoColour {
		return 0
	}
	score := 0
	for _, p := range bPieces {
		val := bValue[p.Kind()] * v.CapturedCount(p)
		if p.Colour() == me {
			score -= val
		} else {
			score += val
		}
	}
	if g.simple {
		return score
	}
	material := score
	var buf [96]banqi.Move
	best := 0
	for _, m := range v.LegalMoves(buf[:0]) {
		switch m.Kind() {
		case banqi.KindCapture:
			best = max(best, bValue[v.Cell(m.To()).Piece().Kind()])
			score += 3
		case banqi.KindStep:
			score += 3
		}
	}
	score += best / 2
	// The opponent's mobility: empty squares next to its revealed pieces.
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		p := v.Cell(sq).Piece()
		if p == banqi.NoPiece || p.Colour() == me {
			continue
		}
		f, r := sq.File(), sq.Rank()
		for _, d := range [4][2]int{{0, 1}, {0, -1}, {1, 0}, {-1, 0}} {
			if t := banqi.SquareAt(f+d[0], r+d[1]); t.Valid() && v.Cell(t) == banqi.Empty {
				score -= 3
			}
		}
	}
	if !g.convert {
		return score
	}
	score += conversion(v, me, material)
	// A draw by B5.2 scores 0: as the plies without a capture or a reveal
	// add up, every advantage is worth less, so the side ahead prefers the
	// capture or reveal that keeps it.
	return score * (2*bQuietLimit - v.Quiet()) / (2 * bQuietLimit)
}

// bQuietLimit is the number of plies without a capture or a reveal that
// draws the game (B5.2).
const bQuietLimit = 120

// Weights of conversion.
const (
	bChase = 6  // per square nearer a revealed piece it can capture
	bTrade = 25 // per enemy piece gone, for the side ahead
)

// conversion is the expert's term, for the side whose colour is me, that
// turns a material lead (material, for me) into a win: the side ahead
// gains for each of its revealed pieces that stands near an enemy revealed
// piece it can capture (B4), and for each enemy piece gone, so it chases
// and trades down instead of wandering until the draw (B5.2).
func conversion(v *banqi.View, me banqi.Colour, material int) int {
	if material == 0 {
		return 0
	}
	lead := me
	if material < 0 {
		lead = me.Other()
	}
	var mine, theirs [16]banqi.Square
	nm, nt := 0, 0
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		p := v.Cell(sq).Piece()
		switch {
		case p == banqi.NoPiece:
		case p.Colour() == lead && nm < len(mine):
			mine[nm] = sq
			nm++
		case p.Colour() != lead && nt < len(theirs):
			theirs[nt] = sq
			nt++
		}
	}
	bonus := 0
	for _, a := range mine[:nm] {
		ak := v.Cell(a).Piece().Kind()
		near := -1
		for _, t := range theirs[:nt] {
			if !canTake(ak, v.Cell(t).Piece().Kind()) {
				continue
			}
			d := abs(a.File()-t.File()) + abs(a.Rank()-t.Rank())
			near = max(near, 10-d)
		}
		if near > 0 {
			bonus += bChase * near
		}
	}
	gone := 0
	captured := bCaptured(v)
	for _, p := range bPieces {
		if p.Colour() != lead {
			gone += int(captured[p])
		}
	}
	bonus += bTrade * gone
	if lead != me {
		return -bonus
	}
	return bonus
}

// bCaptured returns how many of each piece have been captured, indexed by
// piece: the same counts as v.CapturedCount, which recounts the whole board
// for every piece, in one pass.
func bCaptured(v *banqi.View) [16]int8 {
	var n [16]int8
	for _, p := range bPieces {
		n[p] = int8(bStandard[p.Kind()] - v.FaceDownCount(p))
	}
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		if p := v.Cell(sq).Piece(); p != banqi.NoPiece {
			n[p]--
		}
	}
	return n
}

// bStandard is how many pieces of each kind a colour starts with (B1).
var bStandard = [...]int{banqi.General: 1, banqi.Advisor: 2, banqi.Elephant: 2, banqi.Chariot: 2,
	banqi.Horse: 2, banqi.Cannon: 2, banqi.Soldier: 5}

// canTake reports whether a piece of kind a can capture one of kind b, by
// rank (B4.1); a cannon, which captures at a distance over a screen
// (B4.2), counts as threatening every piece.
func canTake(a, b banqi.Kind) bool {
	switch {
	case a == banqi.Cannon:
		return true
	case a == banqi.Soldier && b == banqi.General:
		return true
	case a == banqi.General && b == banqi.Soldier:
		return false
	}
	return a <= b
}

func (g bGame) Hash(s *bState) uint64 {
	v := &s.v
	h := uint64(v.ToMove())<<2 | uint64(v.Colour(engine.First))
	if g.expert {
		// The expert's scores depend on the B5.2 clock.
		h |= uint64(v.Quiet()) << 8
	}
	for sq := banqi.Square(0); sq < banqi.NumSquares; sq++ {
		h = (h ^ uint64(v.Cell(sq))) * 0x100000001B3
	}
	captured := bCaptured(v)
	for _, p := range bPieces {
		h = (h ^ uint64(captured[p])) * 0x100000001B3
	}
	h ^= h >> 31
	h *= 0xBF58476D1CE4E5B9
	return h ^ h>>29
}

// Order tries captures of the most valuable pieces first, then steps, then
// reveals.
func (bGame) Order(s *bState, moves []banqi.Move) {
	key := func(m banqi.Move) int {
		switch m.Kind() {
		case banqi.KindCapture:
			return -bValue[s.v.Cell(m.To()).Piece().Kind()]
		case banqi.KindStep:
			return 0
		}
		return 1
	}
	slices.SortStableFunc(moves, func(a, b banqi.Move) int { return key(a) - key(b) })
}

// bRootReveals is how many reveals the expert searches at the root with
// the reveal policy on, the best by bRevealScore, beside every step and
// capture: in the opening a handful of some 28, so the search goes deeper
// (mean opening depth 2.6 in node-limited lab games).
const bRootReveals = 6

// bExpertPolicy turns the reveal policy on for the expert. It is off: in
// screens against hard at 50 ms it made no difference we could measure
// (40 games each, same load: 67.5% with and without; 22 node-limited
// games replayed with and without: 70.5% and 72.7%; 200 games with it
// under load 9-16: 64.5%, against 71.8% without under load 4-12). The
// Banqi lab measures it with TABULEIRO_BANQI_LAB_POLICY=1.
var bExpertPolicy = false

// bExpertGame is the expert's search adapter: two reveals below the root,
// as expert-1, spread over the board or, with the reveal policy, the best
// two by bRevealScore and bRootReveals at the root.
func bExpertGame() bGame {
	if bExpertPolicy {
		return bGame{reveals: 2, expert: true, policy: true, rootReveals: bRootReveals}
	}
	return bGame{reveals: 2, expert: true}
}

func selectBanqi(ctx context.Context, v banqi.View, lvl Level, budget time.Duration, threads int, rng *rand.Rand) (Choice, error) {
	gs := levelGames[bState, banqi.Move, bGame, bGame, bGame]{
		simple: bGame{simple: true},
		medium: bGame{},
		deep:   bGame{reveals: 4},
	}
	switch lvl {
	case Expert:
		// Two reveals below the root, as expert-1: with none the search
		// went deeper but forced every side to step a piece where it
		// would reveal, and it scored 20% against hard at 100 ms (23
		// games).
		gs.deep = bExpertGame()
		gs.expert = bExpertRefinements
		gs.tableBits = tableBits(budget, 16)
		if !faceDown(&v) {
			det := levelGames[bState, banqi.Move, bGame, bGame, bDet]{simple: gs.simple, medium: gs.medium, deep: bDet{gs.deep}, expert: gs.expert, tableBits: gs.tableBits}
			m, c, err := choose(ctx, det, bState{v: v}, lvl, budget, threads, rng)
			c.Ply = m
			return c, err
		}
	case Expert1:
		// Fewer reveals below the root make the expert's chance nodes
		// cheaper, so its deeper search (table, iterative deepening) goes a
		// ply past hard's instead of matching it.
		gs.deep.reveals = 2
		gs.deep.convert = true
	}
	m, c, err := choose(ctx, gs, bState{v: v}, lvl, budget, threads, rng)
	c.Ply = m
	return c, err
}
