package quoridor

// The wall lattice. Walls run along the lines between squares; the points
// where those lines cross are a 10×10 lattice whose 64 interior points are
// exactly the wall anchors: the anchor of a wall (bit file+8*rank) is its
// middle point. A horizontal wall on anchor a joins the points a-1, a and
// a+1, a vertical one a-8, a and a+8; an end beyond the interior lies on the
// board's rim, and the whole rim counts as one point.
//
// A new wall separates two squares that were connected only if it closes a
// region, that is only if two of its three points were already joined by
// the walls on the board (through the rim or not). Otherwise no square
// loses a neighbour it could reach some other way, so the wall leaves every
// pawn a path (Q3.4) without any search. The Position keeps, as two anchor
// sets, the walls that join two points of one connected piece of the wall
// lattice: only those ever need the exact test of illegalWalls below.

// latticeLinks returns the lattice edges the walls h and v lay: bit x of
// eh joins point x to x+1, bit x of ev joins x to x+8.
func latticeLinks(h, v uint64) (eh, ev uint64) {
	return (h | h>>1) &^ anchorFileH, v&^anchorRank8 | v>>8
}

// rimPoints returns the interior points that a wall joins to the rim.
func rimPoints(h, v uint64) uint64 {
	return h&(anchorFileA|anchorFileH) | v&(anchorRank1|anchorRank8)
}

// fillLattice returns the points joined to s by the links eh and ev.
func fillLattice(s, eh, ev uint64) uint64 {
	for {
		n := s | (s&eh)<<1 | s>>1&eh | (s&ev)<<8 | s>>8&ev
		if n == s {
			return s
		}
		s = n
	}
}

// closingWalls returns the horizontal and vertical anchors whose wall would
// have two of its three points in the piece c of the lattice; rim says
// whether c is joined to the rim.
func closingWalls(c uint64, rim bool) (h, v uint64) {
	var rimA, rimH, rim1, rim8 uint64
	if rim {
		rimA, rimH, rim1, rim8 = anchorFileA, anchorFileH, anchorRank1, anchorRank8
	}
	lo, hi := c<<1&^anchorFileA|rimA, c>>1&^anchorFileH|rimH
	h = lo&c | lo&hi | c&hi
	lo, hi = c<<8|rim1, c>>8|rim8
	v = lo&c | lo&hi | c&hi
	return h, v
}

// wallPoints returns the interior points of the wall m and whether it
// touches the rim.
func wallPoints(m Move) (pts uint64, rim bool) {
	a := m.anchor()
	b := uint64(1) << a
	if m&kindMask == kindH {
		f := a & 7
		pts = b
		if f > 0 {
			pts |= b >> 1
		}
		if f < 7 {
			pts |= b << 1
		}
		return pts, f == 0 || f == 7
	}
	r := a >> 3
	return b | b>>8 | b<<8, r == 0 || r == 7
}

// addWall places the wall m (no checks): its edges, its anchor and the
// closing sets of the lattice piece it joins.
func (p *Position) addWall(m Move) {
	a := m.anchor()
	if m&kindMask == kindH {
		p.edges[north] = p.edges[north].or(wallTables.hN[a])
		p.edges[south] = p.edges[south].or(wallTables.hS[a])
		p.hWalls |= 1 << a
	} else {
		p.edges[east] = p.edges[east].or(wallTables.vE[a])
		p.edges[west] = p.edges[west].or(wallTables.vW[a])
		p.vWalls |= 1 << a
	}
	// Pieces only grow as walls are added, and the closing sets of a piece
	// include those of its parts, so the union below is a function of the
	// walls alone, whatever their order. A wall that touches neither the rim
	// nor another wall is a piece of its own, whose closing walls all
	// overlap it: it adds none until a wall joins it, and then the fill
	// from that wall takes it in.
	pts, rim := wallPoints(m)
	eh, ev := latticeLinks(p.hWalls&^(1<<a), p.vWalls&^(1<<a))
	if !rim && pts&(eh|eh<<1|ev|ev<<8) == 0 {
		return
	}
	eh, ev = latticeLinks(p.hWalls, p.vWalls)
	c := fillLattice(pts, eh, ev)
	if seeds := rimPoints(p.hWalls, p.vWalls); rim || c&seeds != 0 {
		c, rim = fillLattice(c|seeds, eh, ev), true
	}
	h, v := closingWalls(c, rim)
	p.closeH |= h
	p.closeV |= v
}

// The exact wall test (Q3.4), with no search of the board.
//
// Add to the board a goal node beyond the goal rank, joined to each goal
// square: a pawn has a path to its goal rank exactly when it has one to
// that node. The faces of this plane graph are the lattice points, except
// that the goal node splits the board's rim along the goal rank into
// eight faces of their own (the points between two goal squares), each
// touched by at most one wall, so never part of a cycle: for the side that
// runs north the rim is the west, south and east sides, for the side that
// runs south the west, north and east sides.
//
// The walls on the board and a new wall w separate the pawn from the goal
// node exactly when their lattice edges hold a cycle that the straight ray
// from the pawn to the goal node (its file, then the goal node) crosses an
// odd number of times: a cycle of lattice edges is the boundary of a set of
// squares, and any walk between a square inside and one outside crosses it
// an odd number of times. Cycles of the walls already on the board are
// crossed an even number of times (the pawn has a path), so the parity of
// the crossings of a lattice path between two points of one piece does not
// depend on the path: it labels the points of each piece 0 or 1 (the rim 0).
// A new cycle runs through one or both halves of w and back through one
// piece, so w is illegal exactly when, for its points p, m, q (halves p-m
// and m-q), two of them lie in one piece and the halves between them plus
// their labels are crossed an odd number of times.

// illegalWalls returns, among the walls whose anchors are in ch and cv,
// the horizontal and vertical ones that would leave side's pawn no path to
// its goal rank. Every wall on those anchors must be free (Q3.2, Q3.3).
func (p *Position) illegalWalls(side int, ch, cv uint64) (ih, iv uint64) {
	h, v := p.hWalls, p.vWalls
	sq := p.pawns[side]
	f, r := uint(sq.File()), uint(sq.Rank())
	// ray: the anchor rows whose horizontal lattice line the ray crosses
	// (the line above rank r for anchor row r).
	var ray, rimV uint64
	if side == 0 {
		ray = ^uint64(0) << (8 * r)
		rimV = v & anchorRank1
	} else {
		ray = uint64(1)<<(8*r) - 1
		rimV = v & anchorRank8
	}
	// c1: the horizontal walls whose west half the ray crosses; c2: those
	// whose east half it crosses, which are also the lattice links x–x+1
	// that cross it.
	var c1, c2 uint64
	if f < 8 {
		c1 = anchorFileA << f & ray
	}
	if f > 0 {
		c2 = anchorFileA << (f - 1) & ray
	}
	eh, ev := latticeLinks(h, v)
	rimPts := h&(anchorFileA|anchorFileH) | rimV
	rimOdd := h & (anchorFileA&c1 | anchorFileH&c2)
	ehOdd := eh & c2
	even := ehOdd|rimOdd == 0
	if even {
		// No wall on the board crosses the ray: every point is labelled 0,
		// so only a wall whose own half the ray crosses can be illegal.
		ch &= c1 | c2
		cv = 0
	}

	linked := eh | eh<<1 | ev | ev<<8 | rimPts
	todo := (ch | ch<<1&^anchorFileA | ch>>1&^anchorFileH | cv | cv<<8 | cv>>8) & linked
	for todo != 0 {
		x := todo & -todo
		z0, z1 := fillLattice(x, eh, ev), uint64(0)
		rim := z0&rimPts != 0
		switch {
		case rim && even:
			z0 = fillLattice(z0|rimPts, eh, ev)
		case rim:
			z0, z1 = fillParity(rimPts&^rimOdd, rimOdd, eh&^ehOdd, ehOdd, ev)
		case z0&ehOdd != 0:
			z0, z1 = fillParity(x, 0, eh&^ehOdd, ehOdd, ev)
		}
		todo &^= z0 | z1

		// Horizontal walls: p = a-1 (the rim on file a), q = a+1 (the rim
		// on file h).
		p0, p1 := z0<<1&^anchorFileA, z1<<1&^anchorFileA
		q0, q1 := z0>>1&^anchorFileH, z1>>1&^anchorFileH
		if rim {
			p0 |= anchorFileA
			q0 |= anchorFileH
		}
		pm := (p0 | p1) & (z0 | z1)
		mq := (z0 | z1) & (q0 | q1)
		pq := (p0 | p1) & (q0 | q1)
		ih |= (p0&z1 | p1&z0 ^ pm&c1) | (z0&q1 | z1&q0 ^ mq&c2) | (p0&q1 | p1&q0 ^ pq&(c1^c2))

		// Vertical walls: p = a-8, q = a+8; the ray crosses neither half.
		// An end on the goal side is no point of the rim.
		p0, p1 = z0<<8, z1<<8
		q0, q1 = z0>>8, z1>>8
		if rim {
			if side == 0 {
				p0 |= anchorRank1
			} else {
				q0 |= anchorRank8
			}
		}
		iv |= p0&z1 | p1&z0 | z0&q1 | z1&q0 | p0&q1 | p1&q0
	}
	return ih & ch, iv & cv
}

// fillParity grows the labelled sets z0 and z1 over the lattice links:
// even links (eh horizontal, ev vertical) keep a label, odd links (oh)
// flip it.
func fillParity(z0, z1, eh, oh, ev uint64) (uint64, uint64) {
	for {
		n0 := z0 | (z0&eh)<<1 | z0>>1&eh | (z0&ev)<<8 | z0>>8&ev | (z1&oh)<<1 | z1>>1&oh
		n1 := z1 | (z1&eh)<<1 | z1>>1&eh | (z1&ev)<<8 | z1>>8&ev | (z0&oh)<<1 | z0>>1&oh
		if n0 == z0 && n1 == z1 {
			return z0, z1
		}
		z0, z1 = n0, n1
	}
}
