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
// lattice: only those ever need a path check.

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
	// walls alone, whatever their order.
	eh, ev := latticeLinks(p.hWalls, p.vWalls)
	pts, rim := wallPoints(m)
	c := fillLattice(pts, eh, ev)
	if seeds := rimPoints(p.hWalls, p.vWalls); rim || c&seeds != 0 {
		c, rim = fillLattice(c|seeds, eh, ev), true
	}
	h, v := closingWalls(c, rim)
	p.closeH |= h
	p.closeV |= v
}
