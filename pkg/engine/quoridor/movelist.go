package quoridor

import (
	"math/bits"
	"slices"
)

// wallRuns holds, for each byte of an anchor set (eight anchors) and each
// value of that byte, the wall moves of its set bits in ascending order,
// padded to eight: appendWalls copies whole rows and advances by the count.
// Rows 0–7 are horizontal walls, 8–15 vertical ones.
var wallRuns [16][256][8]Move

// wallRunLen is the number of set bits of each byte value.
var wallRunLen [256]uint8

// allWalls is every wall move in ascending order: the horizontal ones, then
// the vertical ones.
var allWalls [128]Move

func init() {
	buildWallRuns(&wallRuns, &wallRunLen)
	for a := range 64 {
		allWalls[a] = kindH | Move(a)
		allWalls[64+a] = kindV | Move(a)
	}
}

func buildWallRuns(t *[16][256][8]Move, count *[256]uint8) {
	for row := range 16 {
		kind := Move(kindH)
		if row >= 8 {
			kind = kindV
		}
		base := Move(row&7) * 8
		for v := range 256 {
			n := 0
			for b := range 8 {
				if v>>b&1 != 0 {
					t[row][v][n] = kind | (base + Move(b))
					n++
				}
			}
			count[v] = uint8(n)
		}
	}
}

// appendWalls appends the horizontal walls on the anchors hs, then the
// vertical ones on vs, each in ascending order. It copies whole table rows
// into dst's spare capacity while there is room for eight moves, so it may
// write there beyond the moves it appends.
func appendWalls(dst []Move, hs, vs uint64) []Move {
	if n := bits.OnesCount64(hs) + bits.OnesCount64(vs); cap(dst)-len(dst) < n {
		dst = slices.Grow(dst, n)
	}
	return copyWalls(dst, hs, vs)
}

// copyWalls is appendWalls for a dst with the room it needs. A full set
// (no wall of that orientation placed nor blocked yet) is one copy; the
// sixteen row copies are written out so that row and shift are constants.
func copyWalls(dst []Move, hs, vs uint64) []Move {
	n := len(dst)
	buf := dst[:cap(dst)]
	if hs == ^uint64(0) {
		n += copy(buf[n:], allWalls[:64])
	} else {
		n = copyRow(buf, n, &wallRuns[0], uint8(hs>>0))
		n = copyRow(buf, n, &wallRuns[1], uint8(hs>>8))
		n = copyRow(buf, n, &wallRuns[2], uint8(hs>>16))
		n = copyRow(buf, n, &wallRuns[3], uint8(hs>>24))
		n = copyRow(buf, n, &wallRuns[4], uint8(hs>>32))
		n = copyRow(buf, n, &wallRuns[5], uint8(hs>>40))
		n = copyRow(buf, n, &wallRuns[6], uint8(hs>>48))
		n = copyRow(buf, n, &wallRuns[7], uint8(hs>>56))
	}
	if vs == ^uint64(0) {
		n += copy(buf[n:], allWalls[64:])
	} else {
		n = copyRow(buf, n, &wallRuns[8], uint8(vs>>0))
		n = copyRow(buf, n, &wallRuns[9], uint8(vs>>8))
		n = copyRow(buf, n, &wallRuns[10], uint8(vs>>16))
		n = copyRow(buf, n, &wallRuns[11], uint8(vs>>24))
		n = copyRow(buf, n, &wallRuns[12], uint8(vs>>32))
		n = copyRow(buf, n, &wallRuns[13], uint8(vs>>40))
		n = copyRow(buf, n, &wallRuns[14], uint8(vs>>48))
		n = copyRow(buf, n, &wallRuns[15], uint8(vs>>56))
	}
	return buf[:n]
}

// copyRow copies the row of byte b to buf[n:] and returns the new length.
func copyRow(buf []Move, n int, row *[256][8]Move, b uint8) int {
	if n+8 > len(buf) {
		return copyTail(buf, n, &row[b], int(wallRunLen[b]))
	}
	*(*[8]Move)(buf[n : n+8]) = row[b]
	return n + int(wallRunLen[b])
}

// copyTail is copyRow near the end of buf.
func copyTail(buf []Move, n int, run *[8]Move, k int) int {
	return n + copy(buf[n:], run[:k])
}
