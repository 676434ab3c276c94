package corners

import (
	"fmt"
	"strconv"

	"tabuleiro.dev/pkg/engine"
)

// Board is a Corners position without its history: the pieces, the side to
// move, the plies played and the outcome as far as the board decides it
// (everything but C6.4's repetition, which needs the history that Position
// keeps). It is a small comparable value of fixed-size arrays; methods never
// change their receiver.
type Board struct {
	pieces  [2]bitset // white's and black's
	hash    uint64    // Zobrist hash of the pieces and the side to move
	plies   int32
	variant uint8
	outcome engine.Outcome
}

func (b *Board) spec() *spec { return &specs[b.variant] }

// newBoard returns the start position of variant vi (C1).
func newBoard(vi uint8) Board {
	b := Board{variant: vi}
	sp := b.spec()
	b.pieces[0] = sp.home[0]
	if !sp.solo {
		b.pieces[1] = sp.home[1]
	}
	b.hash = b.computeHash()
	return b
}

func (b *Board) computeHash() uint64 {
	var h uint64
	for s := range 2 {
		for _, q := range b.pieces[s].squares(nil) {
			h ^= zobrist.piece[s][q]
		}
	}
	if b.mover() == 1 {
		h ^= zobrist.black
	}
	return h
}

// Variant returns the rule set.
func (b Board) Variant() engine.Variant { return b.spec().v }

// ToMove returns the seat to move: always white in training; NoSeat once the
// game is over.
func (b Board) ToMove() engine.Seat {
	switch {
	case b.outcome.Over():
		return engine.NoSeat
	case b.spec().solo || b.plies%2 == 0:
		return engine.First
	default:
		return engine.Second
	}
}

// mover is the seat whose turn it is by the ply count, over or not.
func (b *Board) mover() int {
	if b.spec().solo {
		return 0
	}
	return int(b.plies % 2)
}

// Plies returns the number of plies played.
func (b Board) Plies() int { return int(b.plies) }

// moveOf returns the move number of the ply with 0-based index k.
func (b *Board) moveOf(k int) int {
	if b.spec().solo {
		return k + 1
	}
	return k/2 + 1
}

// MoveNumber returns the number of the move that the next ply belongs to;
// once the game is over, the number of the move of the last ply (in
// training, the number of moves it took, C2).
func (b Board) MoveNumber() int {
	if b.outcome.Over() {
		return b.moveOf(int(b.plies) - 1)
	}
	return b.moveOf(int(b.plies))
}

// Outcome returns how the game stands as far as the board decides it (all
// but C6.4's repetition).
func (b Board) Outcome() engine.Outcome { return b.outcome }

// Hash returns the Zobrist hash of the pieces and the side to move.
func (b Board) Hash() uint64 { return b.hash }

// Deadline returns the move number by which every piece must have left home
// (C5.1); 0 when the variant has none (training).
func (b Board) Deadline() int { return b.spec().deadline }

// MoveLimit returns the last move of the game (C6.3): 80, or 200 in Halma.
func (b Board) MoveLimit() int { return b.spec().limit }

// Diagonal reports whether steps and jumps may also go diagonally (C2).
func (b Board) Diagonal() bool { return b.spec().dirs == 8 }

// BlockingAllowed reports whether a ply may leave an opponent piece with no
// step and no jump (C6.1); false in training, which has no opponent.
func (b Board) BlockingAllowed() bool { sp := b.spec(); return !sp.forbidBlocks && !sp.solo }

// Size returns the board's width: 8, or 16 for Halma.
func (b Board) Size() int { return b.spec().size }

// Pieces returns the squares of seat s's pieces in increasing order.
func (b Board) Pieces(s engine.Seat) []Square {
	if s != engine.First && s != engine.Second {
		return nil
	}
	return b.pieces[s.Index()].squares(nil)
}

// Home returns the squares of seat s's home in increasing order (C2). In
// training black has a home (white's target) but no pieces.
func (b Board) Home(s engine.Seat) []Square {
	if s != engine.First && s != engine.Second {
		return nil
	}
	return b.spec().home[s.Index()].squares(nil)
}

// PieceAt returns the seat of the piece on q, or NoSeat.
func (b Board) PieceAt(q Square) engine.Seat {
	switch {
	case b.pieces[0].has(q):
		return engine.First
	case b.pieces[1].has(q):
		return engine.Second
	}
	return engine.NoSeat
}

// OnBoard reports whether q is a square of this variant's board.
func (b Board) OnBoard(q Square) bool {
	return q.File() < b.spec().size && q.Rank() < b.spec().size
}

// scratch is the breadth-first search state of jump generation. parent and
// depth are read only for squares already seen, so it needs no clearing.
type scratch struct {
	before bitset // b.violations(), when C6.1 applies
	queue  [MaxPath]Square
	parent [256]Square
	depth  [256]uint8
}

// LegalMoves appends the legal plies of the side to move to dst and returns
// it: one ply per distinct (from, to), with its canonical path (C1's
// shortest chain, ties broken by direction order). Order: pieces by square,
// then steps in direction order, then jump ends in breadth-first order.
// Plies after which the mover would lose by C5.2 are legal and listed.
func (b Board) LegalMoves(dst []Move) []Move {
	if b.outcome.Over() {
		return dst
	}
	var sc scratch
	b.prepare(&sc)
	s := b.mover()
	for w := range 4 {
		for x := b.pieces[s][w]; x != 0; x &= x - 1 {
			dst = b.genPiece(Square(w*64+tz(x)), dst, &sc, true)
		}
	}
	return dst
}

// Destinations returns the legal plies of the piece on from (C3), jumps
// included; none if it is not a piece of the side to move.
func (b Board) Destinations(from Square) []Move {
	if b.outcome.Over() || !b.OnBoard(from) || !b.pieces[b.mover()].has(from) {
		return nil
	}
	var sc scratch
	b.prepare(&sc)
	return b.genPiece(from, nil, &sc, true)
}

// prepare readies sc for genPiece with C6.1.
func (b *Board) prepare(sc *scratch) {
	if b.spec().forbidBlocks {
		sc.before = b.violations()
	}
}

// genPiece appends the plies of the piece on from; ban applies C6.1 where
// the variant forbids blocking.
func (b *Board) genPiece(from Square, dst []Move, sc *scratch, ban bool) []Move {
	sp := b.spec()
	ban = ban && sp.forbidBlocks // sc.before must then hold b.violations()
	g := &geometries[sp.geo]
	nd := sp.dirs
	occ := b.pieces[0].or(b.pieces[1])
	occ.clear(from) // the moving piece has left its square (C3.2)
	for d := range nd {
		t := g.step[from][d]
		if t < 0 || occ.has(Square(t)) {
			continue
		}
		if ban && b.blocksOpponent(from, Square(t), &sc.before) {
			continue
		}
		dst = append(dst, Move{n: 2})
		m := &dst[len(dst)-1]
		m.path[0], m.path[1] = from, Square(t)
	}
	var seen bitset
	seen.set(from)
	sc.queue[0] = from
	sc.depth[from] = 0
	head, tail := 0, 1
	for head < tail {
		u := sc.queue[head]
		head++
		for d := range nd {
			mid := g.step[u][d]
			if mid < 0 || !occ.has(Square(mid)) {
				continue
			}
			t := g.step[mid][d]
			if t < 0 || occ.has(Square(t)) || seen.has(Square(t)) {
				continue
			}
			to := Square(t)
			seen.set(to)
			sc.parent[to] = u
			sc.depth[to] = sc.depth[u] + 1
			sc.queue[tail] = to
			tail++
			if ban && b.blocksOpponent(from, to, &sc.before) {
				continue
			}
			k := int(sc.depth[to])
			dst = append(dst, Move{n: uint8(k + 1)})
			m := &dst[len(dst)-1]
			for x := to; k > 0; k-- {
				m.path[k] = x
				x = sc.parent[x]
			}
			m.path[0] = from
		}
	}
	return dst
}

// blockState reports whether the piece on p has no step and no jump on the
// board occupied by occ, and the set of its blockers: the pieces on its
// neighbours and on the squares just beyond occupied neighbours (C6.1).
func blockState(g *geometry, nd int, p Square, occ *bitset) (bool, bitset) {
	var blockers bitset
	for d := range nd {
		n := g.step[p][d]
		if n < 0 {
			continue
		}
		if !occ.has(Square(n)) {
			return false, blockers
		}
		blockers.set(Square(n))
		l := g.step[n][d]
		if l < 0 {
			continue
		}
		if !occ.has(Square(l)) {
			return false, blockers
		}
		blockers.set(Square(l))
	}
	return true, blockers
}

// violations returns the opponent pieces that are blocked with one of the
// mover's pieces among their blockers before any ply (C6.1).
func (b *Board) violations() bitset {
	sp := b.spec()
	g := &geometries[sp.geo]
	s := b.mover()
	occ := b.pieces[0].or(b.pieces[1])
	var v bitset
	for w := range 4 {
		for x := b.pieces[1-s][w]; x != 0; x &= x - 1 {
			q := Square(w*64 + tz(x))
			if blocked, by := blockState(g, sp.dirs, q, &occ); blocked && !by.and(b.pieces[s]).empty() {
				v.set(q)
			}
		}
	}
	return v
}

// blocksOpponent reports whether moving the mover's piece from from to to
// leaves an opponent piece with no step and no jump with one of the mover's
// pieces among its blockers (C6.1). before is b.violations(): a piece's
// state can change only if from or to is one or two squares from it.
func (b *Board) blocksOpponent(from, to Square, before *bitset) bool {
	sp := b.spec()
	g := &geometries[sp.geo]
	k := 0
	if sp.dirs == 8 {
		k = 1
	}
	s := b.mover()
	affected := g.near[k][from].or(g.near[k][to]).and(b.pieces[1-s])
	if !before.andNot(affected).empty() {
		return true
	}
	if affected.empty() {
		return false
	}
	mine := b.pieces[s]
	mine.clear(from)
	mine.set(to)
	occ := mine.or(b.pieces[1-s])
	for w := range 4 {
		for x := affected[w]; x != 0; x &= x - 1 {
			blocked, by := blockState(g, sp.dirs, Square(w*64+tz(x)), &occ)
			if blocked && !by.and(mine).empty() {
				return true
			}
		}
	}
	return false
}

// Resolve checks m for the side to move and returns the ply to play (C1,
// C3, C6.1). A path of three or more squares is checked hop by hop and
// returned as given; a path of two squares is a step, or else the start and
// end of a jump chain, resolved to the canonical shortest chain (C1).
// Errors are *engine.RuleError, or wrap engine.ErrGameOver.
func (b Board) Resolve(m Move) (Move, error) {
	if b.outcome.Over() {
		return Move{}, fmt.Errorf("play %s: %w", m, engine.ErrGameOver)
	}
	ply := m.String()
	fail := func(e *engine.RuleError) (Move, error) { return Move{}, e }
	refuse := func(rule, detail, msg string, kv ...string) (Move, error) {
		return fail(engine.Refusal(ply, rule, detail, msg, kv...))
	}
	if m.n < 2 {
		return refuse("C1", "too_few_squares", "a ply needs at least two squares")
	}
	sp := b.spec()
	for i := range int(m.n) {
		if !b.OnBoard(m.path[i]) {
			size := strconv.Itoa(sp.size)
			return refuse("C1", "off_board", fmt.Sprintf("%s is off the %d×%d board", m.path[i], sp.size, sp.size), "square", m.path[i].String(), "size", size)
		}
	}
	from := m.From()
	s := b.mover()
	seatName := [2]string{"white", "black"}
	switch {
	case b.pieces[1-s].has(from):
		return refuse("C3", "opponent_piece", fmt.Sprintf("%s holds a %s piece and %s is to move", from, seatName[1-s], seatName[s]), "square", from.String(), "owner", seatName[1-s], "mover", seatName[s])
	case !b.pieces[s].has(from):
		return refuse("C3", "no_piece", "there is no piece on "+from.String(), "square", from.String())
	}
	occ := b.pieces[0].or(b.pieces[1])
	occ.clear(from)
	hop := func(u, v Square) (dir, length int) {
		df, dr := v.File()-u.File(), v.Rank()-u.Rank()
		length = max(absInt(df), absInt(dr))
		if length == 0 || (df != 0 && dr != 0 && absInt(df) != absInt(dr)) {
			return -1, length
		}
		for d, dd := range dirDelta {
			if dd[0]*length == df && dd[1]*length == dr {
				return d, length
			}
		}
		return -1, length
	}
	// jumpError explains why u-v is not a jump here, or returns "" if it is.
	var seen bitset
	seen.set(from)
	jumpError := func(u, v Square) *engine.RuleError {
		d, n := hop(u, v)
		us, vs := u.String(), v.String()
		switch {
		case d < 0 || n != 2:
			if n == 1 && d >= 0 {
				return engine.Refusal(ply, "C3.3", "hop_is_step", fmt.Sprintf("hop %s-%s is a step: steps and jumps never mix", u, v), "from", us, "to", vs)
			}
			return engine.Refusal(ply, "C3.2", "hop_not_jump", fmt.Sprintf("hop %s-%s is not a jump: a jump moves two squares in a straight line", u, v), "from", us, "to", vs)
		case d >= sp.dirs:
			return engine.Refusal(ply, "C3.2", "hop_diagonal", fmt.Sprintf("hop %s-%s is diagonal: %s jumps only orthogonally", u, v, sp.v.ID), "from", us, "to", vs, "variant", sp.v.ID)
		}
		mid := Square((u.Rank()+dirDelta[d][1])*16 + u.File() + dirDelta[d][0])
		switch {
		case seen.has(v):
			return engine.Refusal(ply, "C3.2", "visits_twice", fmt.Sprintf("the chain visits %s twice", v), "square", vs)
		case !occ.has(mid):
			return engine.Refusal(ply, "C3.2", "nothing_to_jump", fmt.Sprintf("hop %s-%s has no piece to jump over on %s", u, v, mid), "from", us, "to", vs, "over", mid.String())
		case occ.has(v):
			return engine.Refusal(ply, "C3.2", "hop_lands_on_piece", fmt.Sprintf("hop %s-%s lands on %s, which is occupied", u, v, v), "from", us, "to", vs)
		}
		return nil
	}
	res := m
	if m.n == 2 {
		to := m.To()
		d, n := hop(from, to)
		switch {
		case n == 1 && d >= sp.dirs:
			return refuse("C3.1", "step_diagonal", sp.v.ID+" steps only orthogonally", "variant", sp.v.ID)
		case n == 1 && occ.has(to):
			return refuse("C3.1", "occupied", to.String()+" is occupied", "square", to.String())
		case n == 1:
			// A step to an empty neighbour.
		case to == from:
			return refuse("C3.2", "visits_twice", fmt.Sprintf("the chain visits %s twice", from), "square", from.String())
		case occ.has(to):
			return refuse("C3.2", "occupied", to.String()+" is occupied", "square", to.String())
		default:
			var sc scratch
			found := false
			for _, c := range b.genPiece(from, nil, &sc, false) {
				if c.IsJump() && c.To() == to {
					res, found = c, true
					break
				}
			}
			if !found {
				if e := jumpError(from, to); e != nil {
					return fail(e)
				}
				return refuse("C3.2", "no_jump_chain", fmt.Sprintf("no jump chain leads from %s to %s", from, to), "from", from.String(), "to", to.String())
			}
		}
	} else {
		for i := 1; i < int(m.n); i++ {
			u, v := m.path[i-1], m.path[i]
			if e := jumpError(u, v); e != nil {
				return fail(e)
			}
			seen.set(v)
		}
	}
	if v := b.violations(); sp.forbidBlocks && b.blocksOpponent(from, res.To(), &v) {
		return refuse("C6.1", "blocks_opponent", fmt.Sprintf("it would leave an opponent piece with no step and no jump, blocked by a %s piece", seatName[s]), "owner", seatName[s])
	}
	return res, nil
}

// Play checks m (see Resolve) and returns the board after it, with the ply
// actually played (the resolved chain for shorthand).
func (b Board) Play(m Move) (Board, Move, error) {
	res, err := b.Resolve(m)
	if err != nil {
		return b, Move{}, err
	}
	nb := b.apply(res)
	nb.checkStalemate()
	return nb, res, nil
}

// checkStalemate ends an ongoing game whose side to move has no legal ply
// (C6.2, with C4's exception).
func (b *Board) checkStalemate() {
	if b.outcome.Over() || b.hasLegal() {
		return
	}
	sp := b.spec()
	if !sp.solo && b.mover() == 1 && b.fills(0) {
		b.outcome = engine.WinFor(engine.First, engine.ReasonGoal) // C4: black cannot equalise
		return
	}
	b.outcome = engine.DrawBy(engine.ReasonNoLegalMove)
}

func (b *Board) hasLegal() bool {
	var buf [64]Move
	var sc scratch
	b.prepare(&sc)
	s := b.mover()
	for _, q := range b.pieces[s].squares(nil) {
		if len(b.genPiece(q, buf[:0], &sc, true)) > 0 {
			return true
		}
	}
	return false
}

// fills reports whether seat s's pieces fill the opponent's home.
func (b *Board) fills(s int) bool {
	h := b.spec().home[1-s]
	return b.pieces[s].and(h) == h
}

// apply plays a legal ply without checking it and decides the outcome by
// the board (C4, C5, C6.3, training's end), all but C6.2 and C6.4.
func (b Board) apply(m Move) Board {
	sp := b.spec()
	s := b.mover()
	from, to := m.From(), m.To()
	b.pieces[s].clear(from)
	b.pieces[s].set(to)
	b.hash ^= zobrist.piece[s][from] ^ zobrist.piece[s][to]
	if !sp.solo {
		b.hash ^= zobrist.black
	}
	n := b.moveOf(int(b.plies))
	b.plies++
	switch {
	case sp.solo:
		switch {
		case b.fills(0):
			b.outcome = engine.WinFor(engine.First, engine.ReasonCompleted)
		case n >= sp.limit:
			b.outcome = engine.DrawBy(engine.ReasonMoveLimit)
		}
		return b
	case sp.deadline > 0 && n > sp.deadline && sp.home[s].has(to):
		b.outcome = engine.WinFor(engine.Seat(2-s), engine.ReasonReturnHome) // C5.2
		return b
	case s == 0:
		return b // C4: black always answers
	}
	wf, bf := b.fills(0), b.fills(1)
	switch {
	case wf && bf:
		b.outcome = engine.DrawBy(engine.ReasonGoal)
	case bf:
		b.outcome = engine.WinFor(engine.Second, engine.ReasonGoal)
	case wf:
		b.outcome = engine.WinFor(engine.First, engine.ReasonGoal)
	case n == sp.deadline:
		wl, bl := b.lateAtHome(0), b.lateAtHome(1)
		switch {
		case wl && bl:
			b.outcome = engine.DrawBy(engine.ReasonDeadline)
		case wl:
			b.outcome = engine.WinFor(engine.Second, engine.ReasonDeadline)
		case bl:
			b.outcome = engine.WinFor(engine.First, engine.ReasonDeadline)
		}
	}
	if !b.outcome.Over() && n >= sp.limit {
		wc := b.pieces[0].and(sp.home[1]).count()
		bc := b.pieces[1].and(sp.home[0]).count()
		switch {
		case wc > bc:
			b.outcome = engine.WinFor(engine.First, engine.ReasonMoveLimit)
		case bc > wc:
			b.outcome = engine.WinFor(engine.Second, engine.ReasonMoveLimit)
		default:
			b.outcome = engine.DrawBy(engine.ReasonMoveLimit)
		}
	}
	return b
}

// lateAtHome reports whether seat s has a piece at home that counts against
// it at the deadline (C5.1, C5.3).
func (b *Board) lateAtHome(s int) bool {
	sp := b.spec()
	g := &geometries[sp.geo]
	occ := b.pieces[0].or(b.pieces[1])
	for _, q := range b.pieces[s].and(sp.home[s]).squares(nil) {
		if sp.forbidBlocks {
			return true
		}
		blocked, by := blockState(g, sp.dirs, q, &occ)
		if !blocked || by.and(b.pieces[1-s]).empty() {
			return true
		}
	}
	return false
}

// Perft returns the number of ply sequences of length depth from b (leaf
// nodes), for testing the generator. Ended games have no continuations;
// repetition (C6.4) is not considered, since a Board has no history.
func (b Board) Perft(depth int) uint64 {
	if depth <= 0 {
		return 1
	}
	stack := make([][]Move, depth)
	return b.perft(depth, stack)
}

func (b *Board) perft(depth int, stack [][]Move) uint64 {
	moves := b.LegalMoves(stack[depth-1][:0])
	stack[depth-1] = moves
	if depth == 1 {
		return uint64(len(moves))
	}
	var n uint64
	for i := range moves {
		c := b.apply(moves[i])
		n += c.perft(depth-1, stack)
	}
	return n
}
