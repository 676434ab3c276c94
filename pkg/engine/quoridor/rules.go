package quoridor

import (
	"fmt"

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
	return &engine.RuleError{Ply: m.String(), Rule: "Q1", Msg: "not a ply: want a pawn move or a wall"}
}

// CanPlaceWall returns nil if the side to move may place the wall m now,
// else why not: a *engine.RuleError naming the rule (Q3.x), or an error
// wrapping engine.ErrGameOver. Clients use it to preview a wall.
func (p Position) CanPlaceWall(m Move) error {
	if p.over() {
		return fmt.Errorf("place wall %s: %w", m, engine.ErrGameOver)
	}
	if !m.IsWall() {
		return &engine.RuleError{Ply: m.String(), Rule: "Q1", Msg: "not a wall"}
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
		return &engine.RuleError{Ply: m.String(), Rule: "Q3.1", Msg: fmt.Sprintf("%s has no walls left", seatName(seatOf(side)))}
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
			return &engine.RuleError{Ply: m.String(), Rule: "Q3.4",
				Msg: fmt.Sprintf("the wall would leave %s's pawn on %s no path to rank %d", seatName(seatOf(s)), p.pawns[s], goal)}
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
			return &engine.RuleError{Ply: m.String(), Rule: "Q3.2", Msg: "that wall is already on the board"}
		}
		return &engine.RuleError{Ply: m.String(), Rule: "Q3.2",
			Msg: fmt.Sprintf("the wall overlaps the wall %s", wallMove(b, m.Orientation()))}
	}
	if other>>a&1 != 0 {
		o := Vertical
		if m.Orientation() == Vertical {
			o = Horizontal
		}
		return &engine.RuleError{Ply: m.String(), Rule: "Q3.3",
			Msg: fmt.Sprintf("the wall crosses the wall %s", wallMove(a, o))}
	}
	return nil
}

// pawnError explains why the pawn to move may not go to to (Q2).
func (p *Position) pawnError(to Square) *engine.RuleError {
	side := p.side()
	me, op := p.pawns[side], p.pawns[1-side]
	g := &p.edges
	ply := to.String()
	rule := func(r, format string, args ...any) *engine.RuleError {
		return &engine.RuleError{Ply: ply, Rule: r, Msg: fmt.Sprintf(format, args...)}
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
		return rule("Q2.1", "the pawn already stands on %s", to)
	case to == op:
		return rule("Q2.4", "a pawn never moves onto the opponent's square %s", op)
	}
	if d := dirTo(me, to); d >= 0 {
		return rule("Q2.1", "a wall lies between %s and %s", me, to)
	}
	df, dr := to.File()-me.File(), to.Rank()-me.Rank()
	if (df == 0 && (dr == 2 || dr == -2)) || (dr == 0 && (df == 2 || df == -2)) {
		mid := SquareAt(me.File()+df/2, me.Rank()+dr/2)
		d := dirTo(me, mid)
		switch {
		case mid != op:
			return rule("Q2.2", "a pawn moves two squares only to jump over the opponent, and %s is not the opponent's square", mid)
		case g[d].has(me):
			return rule("Q2.2", "a wall lies between %s and the opponent on %s", me, op)
		default:
			return rule("Q2.2", "a wall lies behind the opponent, between %s and %s", op, to)
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
				return rule("Q2.3", "a wall lies between %s and the opponent on %s", me, op)
			case !g[d].has(op):
				return rule("Q2.3", "a diagonal move is never legal while the straight jump to %s is legal", op+step[d])
			default:
				return rule("Q2.3", "a wall lies between the opponent on %s and %s", op, to)
			}
		}
		return rule("Q2.4", "a pawn moves diagonally only beside an opponent it cannot jump straight over")
	}
	return rule("Q2.1", "%s to %s is not a pawn move: one square up, down, left or right, or a jump over the adjacent opponent", me, to)
}
