// Package quoridor implements Quoridor as RULES.md Q1–Q5 state it, in the
// variants "standard" and "limit200".
//
// A Position is an immutable value of fixed-size bitsets: the 81 squares are
// a 128-bit bitboard, walls are two 64-bit anchor sets, and the edges that
// walls and the board close are kept as four bitboards, one per direction,
// updated as walls are placed. Wall legality (Q3.4) searches no board: a
// wall that closes a region (two of its three points on one connected piece
// of the wall lattice) gets an exact test on the lattice alone, by the parity
// of the crossings of the new cycle with a straight ray from each pawn to its
// goal (lattice.go). Perft plays plies in place on a board (board.go).
package quoridor

import (
	"fmt"
	"math/bits"

	"tabuleiro.dev/pkg/engine"
)

// The variant ids (Q4).
const (
	Standard = "standard"
	Limit200 = "limit200"
)

// Rule constants.
const (
	// WallsEach is the number of walls each player starts with (Q1).
	WallsEach = 10
	// PlyLimit is the ply count at which limit200 is drawn (Q4).
	PlyLimit = 200
)

// variant numbers start at 1 so that the zero Position is no game.
const (
	variantStandard uint8 = iota + 1
	variantLimit200
)

var variants = [...]engine.Variant{
	{
		Game: engine.Quoridor, ID: Standard, Name: "Standard", Players: 2,
		Rated: true, Draws: false, DefaultBaseMS: 180000, DefaultIncrementMS: 2000,
	},
	{
		Game: engine.Quoridor, ID: Limit200, Name: "Draw at 200 plies", Players: 2,
		Rated: false, Draws: false, DefaultBaseMS: 180000, DefaultIncrementMS: 2000,
	},
}

// Variants returns the rule sets of Quoridor: standard (no draw, Q4) and
// limit200 (drawn after 200 plies without a winner). Neither lets players
// agree a draw. The default clock is Fischer 3 min + 2 s (Q5).
func Variants() []engine.Variant {
	return []engine.Variant{variants[0], variants[1]}
}

func variantNumber(id string) (uint8, bool) {
	switch id {
	case Standard:
		return variantStandard, true
	case Limit200:
		return variantLimit200, true
	}
	return 0, false
}

// New returns the initial position of variant: white on e1, black on e9,
// ten walls each, white to move (Q1, Q5). Quoridor takes no setup: setup
// must be empty.
func New(variant, setup string) (engine.Position, error) {
	p, err := NewPosition(variant, setup)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// NewPosition is New returning the concrete Position.
func NewPosition(variant, setup string) (Position, error) {
	v, ok := variantNumber(variant)
	if !ok {
		return Position{}, fmt.Errorf("quoridor variant %q: %w", variant, engine.ErrUnknownVariant)
	}
	if setup != "" {
		return Position{}, fmt.Errorf("quoridor takes no setup, got %q: %w", setup, engine.ErrBadSetup)
	}
	return Position{
		edges:     emptyEdges,
		pawns:     [2]Square{SquareAt(4, 0), SquareAt(4, 8)},
		wallsLeft: [2]int8{WallsEach, WallsEach},
		variant:   v,
	}, nil
}

// Position is a Quoridor position. It is an immutable value with no slices,
// maps or pointers: copies are independent and == compares positions.
type Position struct {
	edges     edges     // closed edges per direction: board edge and walls
	hWalls    uint64    // anchors (file + 8*rank) of horizontal walls
	vWalls    uint64    // anchors of vertical walls
	closeH    uint64    // anchors of the horizontal walls that would close a region (lattice.go)
	closeV    uint64    // the same for vertical walls
	plies     int32     // plies played; white moves at even counts
	pawns     [2]Square // white's, black's
	wallsLeft [2]int8   // white's, black's
	last      Move      // the last ply, NoMove at the start
	variant   uint8
}

var _ engine.Position = Position{}

// goals are the goal ranks: rank 9 for white, rank 1 for black (Q1).
var goals = [2]bitboard{rankMask[8], rankMask[0]}

// side returns 0 when white is to move, 1 for black.
func (p *Position) side() int { return int(p.plies & 1) }

func seatOf(side int) engine.Seat {
	if side == 0 {
		return engine.First
	}
	return engine.Second
}

func sideOf(s engine.Seat) int {
	if s == engine.Second {
		return 1
	}
	return 0
}

// over reports whether the game has ended (Q4).
func (p *Position) over() bool {
	return p.pawns[0] >= 72 || p.pawns[1] < 9 || (p.variant == variantLimit200 && p.plies >= PlyLimit)
}

// Variant returns the rule set.
func (p Position) Variant() engine.Variant {
	if p.variant == variantLimit200 {
		return variants[1]
	}
	return variants[0]
}

// ToMove returns the seat to move (white is engine.First); NoSeat once the
// game is over.
func (p Position) ToMove() engine.Seat {
	if p.over() {
		return engine.NoSeat
	}
	return seatOf(p.side())
}

// Plies returns the number of plies played.
func (p Position) Plies() int { return int(p.plies) }

// Outcome returns a win for the seat whose pawn stands on its goal rank, a
// ply-limit draw for limit200 after 200 plies without a winner, else
// ongoing (Q4).
func (p Position) Outcome() engine.Outcome {
	switch {
	case p.pawns[0] >= 72:
		return engine.WinFor(engine.First, engine.ReasonGoal)
	case p.pawns[1] < 9:
		return engine.WinFor(engine.Second, engine.ReasonGoal)
	case p.variant == variantLimit200 && p.plies >= PlyLimit:
		return engine.DrawBy(engine.ReasonPlyLimit)
	}
	return engine.Outcome{}
}

// Pawn returns the square of seat s's pawn (white is engine.First).
func (p Position) Pawn(s engine.Seat) Square { return p.pawns[sideOf(s)] }

// WallsLeft returns how many walls seat s may still place.
func (p Position) WallsLeft(s engine.Seat) int { return int(p.wallsLeft[sideOf(s)]) }

// Walls returns the walls on the board, in canonical order (horizontal,
// then vertical, each by anchor). Each is a wall Move: At and Orientation
// give its anchor and orientation.
func (p Position) Walls() []Move {
	ws := make([]Move, 0, bits.OnesCount64(p.hWalls)+bits.OnesCount64(p.vWalls))
	for h := p.hWalls; h != 0; h &= h - 1 {
		ws = append(ws, wallMove(bits.TrailingZeros64(h), Horizontal))
	}
	for v := p.vWalls; v != 0; v &= v - 1 {
		ws = append(ws, wallMove(bits.TrailingZeros64(v), Vertical))
	}
	return ws
}

// HasWall reports whether the wall m stands on the board.
func (p Position) HasWall(m Move) bool {
	switch m.Orientation() {
	case Horizontal:
		return p.hWalls>>m.anchor()&1 != 0
	case Vertical:
		return p.vWalls>>m.anchor()&1 != 0
	}
	return false
}

// LastMove returns the last ply played; NoMove at the start.
func (p Position) LastMove() Move { return p.last }

// SeatName returns "white" for engine.First and "black" for engine.Second.
func (p Position) SeatName(s engine.Seat) string { return seatName(s) }

func seatName(s engine.Seat) string {
	switch s {
	case engine.First:
		return "white"
	case engine.Second:
		return "black"
	}
	return "none"
}

// View returns the position itself: Quoridor has no hidden information.
func (p Position) View(engine.Seat) engine.View { return p }

// ParsePly parses a ply in Q1 notation; see ParseMove.
func (p Position) ParsePly(s string) (engine.Ply, error) {
	m, err := ParseMove(s)
	if err != nil {
		return nil, engine.InGame(err, engine.Quoridor)
	}
	return m, nil
}

// Legal returns the legal plies of the side to move, in canonical order
// (ascending Move); none once the game is over.
func (p Position) Legal() []engine.Ply {
	var buf [maxMoves]Move
	ms := p.LegalMoves(buf[:0])
	out := make([]engine.Ply, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

// Play applies a ply for the side to move; see PlayMove. A ply that is not
// a Move is parsed from its String.
func (p Position) Play(pl engine.Ply) (engine.Position, error) {
	m, ok := pl.(Move)
	if !ok {
		if pl == nil {
			return nil, engine.Refusal("-", "Q1", "no_ply", "no ply given")
		}
		var err error
		if m, err = ParseMove(pl.String()); err != nil {
			return nil, fmt.Errorf("play %q: %w", pl.String(), err)
		}
	}
	np, err := p.PlayMove(m)
	if err != nil {
		return nil, err
	}
	return np, nil
}

// PlayMove validates m for the side to move and returns the new position.
// An illegal ply is a *engine.RuleError naming the rule (Q2.x, Q3.x); a ply
// after the end wraps engine.ErrGameOver.
func (p Position) PlayMove(m Move) (Position, error) {
	if p.over() {
		return Position{}, fmt.Errorf("play %s: %w", m, engine.ErrGameOver)
	}
	if err := p.check(m); err != nil {
		return Position{}, err
	}
	return p.apply(m), nil
}

// apply plays m without checking it.
func (p Position) apply(m Move) Position {
	side := p.side()
	switch m & kindMask {
	case kindPawn:
		p.pawns[side] = Square(m & indexMask)
	default:
		p.addWall(m)
		p.wallsLeft[side]--
	}
	p.plies++
	p.last = m
	return p
}

// maxMoves bounds the legal plies of a position: at most 5 pawn moves (3
// steps and 2 diagonals) and 128 walls.
const maxMoves = 136

// pawnTargets returns the squares the pawn to move may go to (Q2).
func (p *Position) pawnTargets() bitboard {
	side := p.side()
	me, op := p.pawns[side], p.pawns[1-side]
	g := &p.edges
	var t bitboard
	for d := range 4 {
		if g[d].has(me) {
			continue // Q2.1: a wall or the board's edge
		}
		n := me + step[d]
		switch {
		case n != op:
			t = t.or(bitOf(n))
		case !g[d].has(op):
			t = t.or(bitOf(op + step[d])) // Q2.2: straight jump
		default: // Q2.3: diagonal beside the opponent
			if l := (d + 1) & 3; !g[l].has(op) {
				t = t.or(bitOf(op + step[l]))
			}
			if r := (d + 3) & 3; !g[r].has(op) {
				t = t.or(bitOf(op + step[r]))
			}
		}
	}
	return t
}

// PawnDestinations returns the squares the pawn to move may go to, jumps
// included, in ascending order; none once the game is over.
func (p Position) PawnDestinations() []Square {
	if p.over() {
		return nil
	}
	t := p.pawnTargets()
	out := make([]Square, 0, t.count())
	for ; !t.empty(); t = t.andNot(bitOf(t.first())) {
		out = append(out, t.first())
	}
	return out
}

// freeWalls returns the anchors where a horizontal and a vertical wall
// would neither overlap (Q3.2) nor cross (Q3.3) a wall on the board.
func (p *Position) freeWalls() (freeH, freeV uint64) {
	h, v := p.hWalls, p.vWalls
	freeH = ^(h | h<<1&^anchorFileA | h>>1&^anchorFileH | v)
	freeV = ^(v | v<<8 | v>>8 | h)
	return freeH, freeV
}

// legalWalls returns the anchors of the legal horizontal and vertical
// walls for the side to move, walls left permitting or not.
func (p *Position) legalWalls() (hs, vs uint64) {
	return p.legalWallsIn(^uint64(0))
}

// legalWallsIn is legalWalls restricted to the anchors in the set within:
// only those walls are checked for Q3.4.
//
// A wall that neither overlaps nor crosses another (Q3.2, Q3.3) is legal
// unless it closes a region of the board (lattice.go); the walls that do
// get the exact test of illegalWalls for each pawn, on the wall lattice
// alone.
func (p *Position) legalWallsIn(within uint64) (hs, vs uint64) {
	hs, vs = p.freeWalls()
	hs, vs = hs&within, vs&within
	ch, cv := hs&p.closeH, vs&p.closeV
	if ch|cv == 0 {
		return hs, vs
	}
	for side := range 2 {
		ih, iv := p.illegalWalls(side, ch, cv)
		hs, vs = hs&^ih, vs&^iv
		ch, cv = ch&^ih, cv&^iv
	}
	return hs, vs
}

// LegalMoves appends the legal plies of the side to move to dst, in
// canonical order (ascending Move), and returns it; nothing once the game
// is over. It may use dst's spare capacity beyond the plies it returns as
// scratch space.
func (p Position) LegalMoves(dst []Move) []Move {
	if p.over() {
		return dst
	}
	dst = p.appendPawnMoves(dst)
	if p.wallsLeft[p.side()] == 0 {
		return dst
	}
	hs, vs := p.legalWalls()
	return appendWalls(dst, hs, vs)
}

// appendPawnMoves appends the pawn moves of the side to move in ascending
// order. Unless the pawns stand side by side, they are the open steps, and
// south, west, east, north is ascending.
func (p *Position) appendPawnMoves(dst []Move) []Move {
	side := p.side()
	me := p.pawns[side]
	if closed, ok := p.stepsAlone(me, p.pawns[1-side]); ok {
		if closed&(1<<south) == 0 {
			dst = append(dst, kindPawn|Move(me-9))
		}
		if closed&(1<<west) == 0 {
			dst = append(dst, kindPawn|Move(me-1))
		}
		if closed&(1<<east) == 0 {
			dst = append(dst, kindPawn|Move(me+1))
		}
		if closed&(1<<north) == 0 {
			dst = append(dst, kindPawn|Move(me+9))
		}
		return dst
	}
	for t := p.pawnTargets(); !t.empty(); {
		s := t.first()
		dst = append(dst, kindPawn|Move(s))
		t = t.andNot(bitOf(s))
	}
	return dst
}

// countPawnMoves returns the number of pawn moves of the side to move.
func (p *Position) countPawnMoves() int {
	side := p.side()
	if closed, ok := p.stepsAlone(p.pawns[side], p.pawns[1-side]); ok {
		return 4 - bits.OnesCount8(uint8(closed))
	}
	return p.pawnTargets().count()
}

// stepsAlone returns the directions in which the pawn on me may not step
// (bit d for direction d), and ok false when the opponent on op stands
// next to it, where jumps change the moves (Q2.2, Q2.3).
func (p *Position) stepsAlone(me, op Square) (closed uint, ok bool) {
	switch d := op - me; d {
	case 9, -9:
		return 0, false
	case 1, -1:
		if op/9 == me/9 {
			return 0, false
		}
	}
	g := &p.edges
	if me < 64 {
		sh := uint(me)
		closed = uint(g[north].lo>>sh&1) | uint(g[east].lo>>sh&1)<<east |
			uint(g[south].lo>>sh&1)<<south | uint(g[west].lo>>sh&1)<<west
	} else {
		sh := uint(me - 64)
		closed = uint(g[north].hi>>sh&1) | uint(g[east].hi>>sh&1)<<east |
			uint(g[south].hi>>sh&1)<<south | uint(g[west].hi>>sh&1)<<west
	}
	return closed, true
}

// LegalMovesWithin is LegalMoves restricted to the walls whose anchor
// (bit file+8*rank of the wall's square nearest a1, Q1) is in the set
// within; every legal pawn move is kept. It appends to dst in canonical
// order, like LegalMoves, and checks only those walls, so a search that
// looks at some walls alone pays for them alone.
func (p Position) LegalMovesWithin(dst []Move, within uint64) []Move {
	if p.over() {
		return dst
	}
	dst = p.appendPawnMoves(dst)
	if p.wallsLeft[p.side()] == 0 || within == 0 {
		return dst
	}
	hs, vs := p.legalWallsIn(within)
	return appendWalls(dst, hs, vs)
}

// PlayUnchecked returns the position after m WITHOUT checking it.
//
// Precondition: the game is not over and m is one of p.LegalMoves (or
// p.LegalMovesWithin); otherwise the result is not a valid position and
// nothing reports it. It gives the same position as PlayMove for every such
// m, and is meant for searches that play only the plies they listed, where
// PlayMove's legality check (a flood fill for each wall) is wasted work.
// Everything else uses PlayMove.
func (p Position) PlayUnchecked(m Move) Position { return p.apply(m) }

// CountLegal returns the number of legal plies of the side to move; zero
// once the game is over.
func (p Position) CountLegal() int {
	if p.over() {
		return 0
	}
	n := p.countPawnMoves()
	if p.wallsLeft[p.side()] > 0 {
		hs, vs := p.legalWalls()
		n += bits.OnesCount64(hs) + bits.OnesCount64(vs)
	}
	return n
}

// Perft returns the number of leaf positions depth plies from p. A
// position where the game is over counts 1 and is not expanded; at the last
// level the legal plies are counted without being played.
func (p Position) Perft(depth int) uint64 {
	if depth <= 0 || p.over() {
		return 1
	}
	if depth == 1 {
		return uint64(p.CountLegal())
	}
	b := newBoard(p)
	return b.perft(depth)
}
