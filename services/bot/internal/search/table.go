package search

import (
	"sync"
	"unsafe"
)

// bound says how a stored score relates to the true one.
type bound uint8

const (
	exact bound = iota + 1
	lower       // the true score is at least the stored one (a cut-off)
	upper       // the true score is at most the stored one (no move raised alpha)
)

// entry's fields run from the widest down so that a small move packs with
// the rest: 16 bytes with a 2-byte move.
type entry[M comparable] struct {
	key   uint64
	score int32
	move  M
	depth int8
	bound bound // 0 marks an empty slot
}

// table is a transposition table: a fixed array indexed by the low bits of
// the position's hash, one entry per slot. A table shared by the threads of
// one search (Limits.Threads) guards its slots with striped locks.
type table[M comparable] struct {
	entries []entry[M]
	mask    uint64
	locks   []sync.Mutex // nil: used by one goroutine
}

// lockStripes is the number of locks of a shared table: slot i is guarded
// by lock i mod lockStripes, so two threads rarely wait for each other.
const lockStripes = 1024

// maxTableBytes caps a table's memory: a game with large moves (a Corners
// move holds its whole path) gets fewer entries.
const maxTableBytes = 8 << 20

func newTable[M comparable](bits int) *table[M] {
	if bits <= 0 {
		bits = 16
	}
	n := uint64(1) << bits
	for n > 1<<10 && n*uint64(unsafe.Sizeof(entry[M]{})) > maxTableBytes {
		n >>= 1
	}
	return &table[M]{entries: make([]entry[M], n), mask: n - 1}
}

// share makes t safe for use by several goroutines.
func (t *table[M]) share() { t.locks = make([]sync.Mutex, lockStripes) }

func (t *table[M]) probe(key uint64) (entry[M], bool) {
	i := key & t.mask
	if t.locks != nil {
		l := &t.locks[i%lockStripes]
		l.Lock()
		e := t.entries[i]
		l.Unlock()
		return e, e.bound != 0 && e.key == key
	}
	e := t.entries[i]
	return e, e.bound != 0 && e.key == key
}

// store keeps the new entry unless the slot holds the same position
// searched deeper.
func (t *table[M]) store(key uint64, m M, score, depth int, b bound) {
	i := key & t.mask
	if t.locks != nil {
		l := &t.locks[i%lockStripes]
		l.Lock()
		defer l.Unlock()
	}
	e := &t.entries[i]
	if e.bound != 0 && e.key == key && int(e.depth) > depth {
		return
	}
	*e = entry[M]{key: key, move: m, score: int32(score), depth: int8(depth), bound: b}
}

// toTable makes a win score relative to the node that stores it, so that it
// stays right when the same position is reached at another distance from
// the root; fromTable undoes it.
func toTable(score, ply int) int {
	switch {
	case score >= WinBound:
		return score + ply
	case score <= -WinBound:
		return score - ply
	}
	return score
}

// fromTable is a stored score seen ply plies from the root: as scoreAt
// makes a terminal's.
func fromTable(score, ply int) int { return scoreAt(score, ply) }
