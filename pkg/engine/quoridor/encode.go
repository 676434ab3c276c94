package quoridor

import (
	"fmt"
	"math/bits"
	"strconv"
	"strings"

	"tabuleiro.dev/pkg/engine"
)

// maxPlies bounds the ply count a decoded position may carry.
const maxPlies = 1 << 30

// Encode returns the position as one line of eight fields separated by
// single spaces:
//
//	<variant> <white pawn> <black pawn> <white walls left>/<black walls left> <walls> <to move> <plies> <last ply>
//
// for example "standard e4 e6 8/9 d3h,c6h,e6v b 7 e6v". <walls> is "-" or
// the walls in Q1 notation, comma-separated, in canonical order (horizontal
// walls, then vertical, each by anchor a1…h8); <to move> is "w", "b", or
// "-" once the game is over; <last ply> is "-" at the start. The start of
// standard is "standard e1 e9 10/10 - w 0 -". Decode is the exact inverse.
func (p Position) Encode() string {
	var b strings.Builder
	b.Grow(64)
	b.WriteString(p.Variant().ID)
	b.WriteByte(' ')
	b.WriteString(p.pawns[0].String())
	b.WriteByte(' ')
	b.WriteString(p.pawns[1].String())
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(int(p.wallsLeft[0])))
	b.WriteByte('/')
	b.WriteString(strconv.Itoa(int(p.wallsLeft[1])))
	b.WriteByte(' ')
	if p.hWalls|p.vWalls == 0 {
		b.WriteByte('-')
	}
	for i, w := range p.Walls() {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(w.String())
	}
	switch {
	case p.over():
		b.WriteString(" -")
	case p.side() == 0:
		b.WriteString(" w")
	default:
		b.WriteString(" b")
	}
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(int(p.plies)))
	b.WriteByte(' ')
	b.WriteString(p.last.String())
	return b.String()
}

// String returns Encode.
func (p Position) String() string { return p.Encode() }

// Decode parses a position written by Encode. It accepts only what Encode
// writes, for a position that can arise: walls that neither overlap nor
// cross, a path to the goal for each pawn, at most 20 walls in all, a last
// ply that agrees with the board. Errors wrap engine.ErrBadSetup.
func Decode(s string) (engine.Position, error) {
	p, err := DecodePosition(s)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// DecodeView is Decode: a Quoridor view is the position itself.
func DecodeView(s string) (engine.View, error) {
	p, err := DecodePosition(s)
	if err != nil {
		return nil, err
	}
	return p, nil
}

// DecodePosition is Decode returning the concrete Position.
func DecodePosition(s string) (Position, error) {
	p, err := decode(s)
	if err != nil {
		return Position{}, fmt.Errorf("decode quoridor position %q: %w: %w", s, engine.ErrBadSetup, err)
	}
	return p, nil
}

func decode(s string) (Position, error) {
	f := strings.Split(s, " ")
	if len(f) != 8 {
		return Position{}, fmt.Errorf("want 8 space-separated fields, got %d", len(f))
	}
	p, err := NewPosition(f[0], "")
	if err != nil {
		return Position{}, err
	}
	for i := range 2 {
		if p.pawns[i], err = ParseSquare(f[1+i]); err != nil {
			return Position{}, fmt.Errorf("pawn: %w", err)
		}
	}
	if p.pawns[0] == p.pawns[1] {
		return Position{}, fmt.Errorf("both pawns on %s", p.pawns[0])
	}
	wl := strings.Split(f[3], "/")
	if len(wl) != 2 {
		return Position{}, fmt.Errorf("walls left %q: want white/black", f[3])
	}
	for i := range 2 {
		n, err := strconv.Atoi(wl[i])
		if err != nil || n < 0 || n > WallsEach {
			return Position{}, fmt.Errorf("walls left %q: want 0–%d", wl[i], WallsEach)
		}
		p.wallsLeft[i] = int8(n)
	}
	if f[4] != "-" {
		for w := range strings.SplitSeq(f[4], ",") {
			m, err := ParseMove(w)
			if err != nil {
				return Position{}, fmt.Errorf("wall: %w", err)
			}
			if !m.IsWall() {
				return Position{}, fmt.Errorf("wall %q is a square", w)
			}
			if err := conflict(p.hWalls, p.vWalls, m); err != nil {
				return Position{}, fmt.Errorf("wall %s: %s (%s)", m, err.Msg, err.Rule)
			}
			p.addWall(m)
		}
	}
	placed := bits.OnesCount64(p.hWalls) + bits.OnesCount64(p.vWalls)
	if placed+int(p.wallsLeft[0])+int(p.wallsLeft[1]) > 2*WallsEach {
		return Position{}, fmt.Errorf("%d walls placed and %d left: more than %d", placed, p.wallsLeft[0]+p.wallsLeft[1], 2*WallsEach)
	}
	for i := range 2 {
		if !p.edges.reaches(bitOf(p.pawns[i]), goals[i]) {
			return Position{}, fmt.Errorf("%s's pawn has no path to its goal (Q3.4)", seatName(seatOf(i)))
		}
	}
	n, err := strconv.Atoi(f[6])
	if err != nil || n < placed || n > maxPlies {
		return Position{}, fmt.Errorf("ply count %q: want %d–%d", f[6], placed, maxPlies)
	}
	p.plies = int32(n)
	if f[7] != "-" {
		if p.last, err = ParseMove(f[7]); err != nil {
			return Position{}, fmt.Errorf("last ply: %w", err)
		}
	}
	if err := p.validate(); err != nil {
		return Position{}, err
	}
	if e := p.Encode(); e != s {
		return Position{}, fmt.Errorf("not in canonical form %q", e)
	}
	return p, nil
}

// validate checks what the fields say together: the last ply was made by
// the side not to move and agrees with the board, a winner made the last
// ply, limit200 ends at 200 plies.
func (p *Position) validate() error {
	if p.plies == 0 {
		if p.last != NoMove {
			return fmt.Errorf("last ply %s at ply count 0", p.last)
		}
	} else {
		mover := 1 - p.side()
		switch {
		case p.last == NoMove:
			return fmt.Errorf("no last ply at ply count %d", p.plies)
		case p.last.IsPawn() && p.pawns[mover] != p.last.To():
			return fmt.Errorf("last ply %s but %s's pawn is on %s", p.last, seatName(seatOf(mover)), p.pawns[mover])
		case p.last.IsWall() && !p.HasWall(p.last):
			return fmt.Errorf("last ply %s but no such wall stands", p.last)
		}
	}
	wonW, wonB := p.pawns[0] >= 72, p.pawns[1] < 9
	switch {
	case wonW && wonB:
		return fmt.Errorf("both pawns stand on their goal ranks")
	case wonW && p.last != PawnTo(p.pawns[0]):
		return fmt.Errorf("white's pawn stands on its goal but did not move last")
	case wonB && p.last != PawnTo(p.pawns[1]):
		return fmt.Errorf("black's pawn stands on its goal but did not move last")
	case (wonW && p.side() != 1) || (wonB && p.side() != 0):
		return fmt.Errorf("the winner did not make the last ply")
	case p.variant == variantLimit200 && p.plies > PlyLimit:
		return fmt.Errorf("limit200 ends at %d plies, got %d", PlyLimit, p.plies)
	}
	return nil
}
