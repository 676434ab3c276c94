package quoridor

import (
	"fmt"
	"strconv"

	"tabuleiro.dev/pkg/engine"
)

// check returns nil if m is legal for the side to move of an ongoing game,
// else a *engine.RuleError naming the rule it breaks.
func (p *Position) check(m Move) error {
	switch {
	case m.IsPawn():
		if p.pawnTargets().has(m.To()) {
			return nil
		}
		return p.pawnError(m.To())
	case m.IsWall():
		if err := p.wallError(m); err != nil {
			return err
		}
		return nil
	}
	return engine.Refusal(m.String(), "Q1", "not_a_ply", "not a ply: want a pawn move or a wall")
}

// CanPlaceWall returns nil if the side to move may place the wall m now,
// else why not: a *engine.RuleError naming the rule (Q3.x), or an error
// wrapping engine.ErrGameOver. Clients use it to preview a wall.
func (p Position) CanPlaceWall(m Move) error {
	if p.over() {
		return fmt.Errorf("place wall %s: %w", m, engine.ErrGameOver)
	}
	if !m.IsWall() {
		return engine.Refusal(m.String(), "Q1", "not_a_wall", "not a wall")
	}
	if err := p.wallError(m); err != nil {
		return err
	}
	return nil
}

// wallError explains why the wall m may not be placed, or returns nil.
func (p *Position) wallError(m Move) *engine.RuleError {
	side := p.side()
	if p.wallsLeft[side] == 0 {
		seat := seatName(seatOf(side))
		return engine.Refusal(m.String(), "Q3.1", "no_walls_left", fmt.Sprintf("%s has no walls left", seat), "seat", seat)
	}
	if err := conflict(p.hWalls, p.vWalls, m); err != nil {
		return err
	}
	g := p.edges.withWall(m)
	for s := range 2 {
		if !g.reaches(bitOf(p.pawns[s]), goals[s]) {
			goal := 9
			if s == 1 {
				goal = 1
			}
			seat := seatName(seatOf(s))
			return engine.Refusal(m.String(), "Q3.4", "wall_blocks_path",
				fmt.Sprintf("the wall would leave %s's pawn on %s no path to rank %d", seat, p.pawns[s], goal),
				"seat", seat, "square", p.pawns[s].String(), "rank", strconv.Itoa(goal))
		}
	}
	return nil
}

// conflict reports the wall among h and v that m overlaps (Q3.2) or
// crosses (Q3.3), or nil.
func conflict(h, v uint64, m Move) *engine.RuleError {
	a := m.anchor()
	f := a % 8
	same, other := h, v
	var near [2]int // the anchors that overlap besides a itself
	if m.Orientation() == Horizontal {
		near = [2]int{-1, -1}
		if f > 0 {
			near[0] = a - 1
		}
		if f < 7 {
			near[1] = a + 1
		}
	} else {
		same, other = v, h
		near = [2]int{a - 8, a + 8}
	}
	over := func(b int) bool { return b >= 0 && b < 64 && same>>b&1 != 0 }
	for _, b := range [3]int{a, near[0], near[1]} {
		if !over(b) {
			continue
		}
		if b == a {
			// The same wall: naming it again would say it three times
			// ("illegal ply e8h: the wall overlaps the wall e8h").
			return engine.Refusal(m.String(), "Q3.2", "wall_already_placed", "that wall is already on the board")
		}
		w := wallMove(b, m.Orientation()).String()
		return engine.Refusal(m.String(), "Q3.2", "wall_overlaps", "the wall overlaps the wall "+w, "wall", w)
	}
	if other>>a&1 != 0 {
		o := Vertical
		if m.Orientation() == Vertical {
			o = Horizontal
		}
		w := wallMove(a, o).String()
		return engine.Refusal(m.String(), "Q3.3", "wall_crosses", "the wall crosses the wall "+w, "wall", w)
	}
	return nil
}

// pawnError explains why the pawn to move may not go to to (Q2).
func (p *Position) pawnError(to Square) *engine.RuleError {
	side := p.side()
	me, op := p.pawns[side], p.pawns[1-side]
	g := &p.edges
	ply := to.String()
	rule := func(r, detail, msg string, kv ...string) *engine.RuleError {
		return engine.Refusal(ply, r, detail, msg, kv...)
	}
	// dirTo returns the direction from a to the adjacent square b, or -1.
	dirTo := func(a, b Square) int {
		for d := range 4 {
			if !emptyEdges[d].has(a) && a+step[d] == b {
				return d
			}
		}
		return -1
	}
	switch {
	case to == me:
		return rule("Q2.1", "pawn_already_there", "the pawn already stands on "+ply, "square", ply)
	case to == op:
		return rule("Q2.4", "onto_opponent", "a pawn never moves onto the opponent's square "+op.String(), "square", op.String())
	}
	if d := dirTo(me, to); d >= 0 {
		return rule("Q2.1", "wall_between", fmt.Sprintf("a wall lies between %s and %s", me, to), "from", me.String(), "to", ply)
	}
	df, dr := to.File()-me.File(), to.Rank()-me.Rank()
	if (df == 0 && (dr == 2 || dr == -2)) || (dr == 0 && (df == 2 || df == -2)) {
		mid := SquareAt(me.File()+df/2, me.Rank()+dr/2)
		d := dirTo(me, mid)
		switch {
		case mid != op:
			return rule("Q2.2", "jump_not_over_opponent", fmt.Sprintf("a pawn moves two squares only to jump over the opponent, and %s is not the opponent's square", mid), "square", mid.String())
		case g[d].has(me):
			return rule("Q2.2", "wall_before_opponent", fmt.Sprintf("a wall lies between %s and the opponent on %s", me, op), "from", me.String(), "opponent", op.String())
		default:
			return rule("Q2.2", "wall_behind_opponent", fmt.Sprintf("a wall lies behind the opponent, between %s and %s", op, to), "opponent", op.String(), "to", ply)
		}
	}
	if (df == 1 || df == -1) && (dr == 1 || dr == -1) {
		for _, beside := range [2]Square{SquareAt(me.File()+df, me.Rank()), SquareAt(me.File(), me.Rank()+dr)} {
			if beside != op {
				continue
			}
			d := dirTo(me, op)
			switch {
			case g[d].has(me):
				return rule("Q2.3", "wall_before_opponent", fmt.Sprintf("a wall lies between %s and the opponent on %s", me, op), "from", me.String(), "opponent", op.String())
			case !g[d].has(op):
				jump := (op + step[d]).String()
				return rule("Q2.3", "diagonal_while_jump_legal", "a diagonal move is never legal while the straight jump to "+jump+" is legal", "square", jump)
			default:
				return rule("Q2.3", "wall_after_opponent", fmt.Sprintf("a wall lies between the opponent on %s and %s", op, to), "opponent", op.String(), "to", ply)
			}
		}
		return rule("Q2.4", "diagonal_not_beside_opponent", "a pawn moves diagonally only beside an opponent it cannot jump straight over")
	}
	return rule("Q2.1", "not_a_pawn_move", fmt.Sprintf("%s to %s is not a pawn move: one square up, down, left or right, or a jump over the adjacent opponent", me, to), "from", me.String(), "to", ply)
}
