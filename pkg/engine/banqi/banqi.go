// Package banqi implements Banqi (dark chess) per RULES.md B1–B6: an 8×4
// board of 32 pieces that start face down, colours fixed by the first
// reveal, captures by rank with the soldier–general exception, and the
// cannon that captures only by jumping exactly one screen.
//
// Position is the whole truth, face-down identities included; it lives only
// in the match service. View is what every seat and every spectator sees
// (B6): its squares hold "empty", "face down" or a revealed piece, and the
// only hidden information it carries is the count of face-down pieces by
// type, which anyone can work out from the record. A View cannot hold the
// identity of a face-down piece because its Cell type has no value for one.
package banqi

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"

	"tabuleiro.dev/pkg/engine"
)

// NumSquares is the number of squares: 8 files by 4 ranks (B1).
const NumSquares = 32

// PlyLimit is the number of plies in a row without a capture or a reveal
// that draws the game (B5.2).
const PlyLimit = 120

// Square is a square of the board, numbered in layout order (B1): a1=0,
// b1=1 … h1=7, a2=8 … h4=31. NoSquare (-1) is not a square.
type Square int8

// NoSquare is not a square of the board.
const NoSquare Square = -1

// SquareAt returns the square on file 0–7 (a–h) and rank 0–3 (1–4), or
// NoSquare when either is off the board.
func SquareAt(file, rank int) Square {
	if file < 0 || file > 7 || rank < 0 || rank > 3 {
		return NoSquare
	}
	return Square(rank*8 + file)
}

// Valid reports whether s is one of the 32 squares.
func (s Square) Valid() bool { return s >= 0 && s < NumSquares }

// File returns 0–7 for files a–h.
func (s Square) File() int { return int(s) & 7 }

// Rank returns 0–3 for ranks 1–4.
func (s Square) Rank() int { return int(s) >> 3 }

// String returns the square's name, for example "c2"; "-" for an invalid
// square.
func (s Square) String() string {
	if !s.Valid() {
		return "-"
	}
	return string([]byte{byte('a' + s.File()), byte('1' + s.Rank())})
}

// ParseSquare parses a square name such as "c2" (lower-case file a–h, rank
// 1–4). Errors are *engine.SyntaxError.
func ParseSquare(s string) (Square, error) {
	sq, err := parseSquareAt(s, 0)
	if err == nil && len(s) > 2 {
		err = &engine.SyntaxError{Input: s, Offset: 2, Msg: fmt.Sprintf("unexpected %q after the square", s[2:])}
	}
	if err != nil {
		return NoSquare, err
	}
	return sq, nil
}

// parseSquareAt reads the square at s[i:]. Its error's offset is the first
// character that is actually wrong: the file, else the rank (the 5 of
// "a5": the board has ranks 1–4), else the end of s where a character is
// missing.
func parseSquareAt(s string, i int) (Square, error) {
	switch {
	case i >= len(s):
		return NoSquare, &engine.SyntaxError{Input: s, Offset: i, Msg: "want a square a1–h4"}
	case s[i] < 'a' || s[i] > 'h':
		return NoSquare, &engine.SyntaxError{Input: s, Offset: i, Msg: fmt.Sprintf("want a file letter a–h, got %q", engine.FirstRune(s[i:]))}
	case i+1 >= len(s):
		return NoSquare, &engine.SyntaxError{Input: s, Offset: i + 1, Msg: "want a rank 1–4 after the file letter"}
	case s[i+1] < '1' || s[i+1] > '4':
		return NoSquare, &engine.SyntaxError{Input: s, Offset: i + 1, Msg: fmt.Sprintf("want a rank 1–4 after the file letter, got %q", engine.FirstRune(s[i+1:]))}
	}
	return SquareAt(int(s[i]-'a'), int(s[i+1]-'1')), nil
}

// Kind is a type of piece. The constants run from the highest rank to the
// lowest (B4.1), so a lower Kind value is a stronger piece.
type Kind int8

// The kinds, high to low (B4.1).
const (
	NoKind Kind = iota
	General
	Advisor
	Elephant
	Chariot
	Horse
	Cannon
	Soldier
)

var kindNames = [...]string{"none", "general", "advisor", "elephant", "chariot", "horse", "cannon", "soldier"}

// kindLetters are the red (upper-case) letters of B1.
const kindLetters = "?KABRNCP"

// kindCount is how many pieces of each kind a colour has (B1).
var kindCount = [8]int8{0, 1, 2, 2, 2, 2, 2, 5}

// String returns the kind's English name, for example "cannon".
func (k Kind) String() string {
	if k >= 0 && int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// Colour is red or black. NoColour means "not fixed yet" (B2).
type Colour int8

// The colours.
const (
	NoColour Colour = iota
	Red
	Black
)

// Other returns the opposite colour; NoColour for NoColour.
func (c Colour) Other() Colour {
	switch c {
	case Red:
		return Black
	case Black:
		return Red
	}
	return NoColour
}

// String returns "red", "black" or "none".
func (c Colour) String() string {
	switch c {
	case Red:
		return "red"
	case Black:
		return "black"
	}
	return "none"
}

// Piece is a coloured piece: 1–7 are red general … soldier, 9–15 black.
// NoPiece (zero) is no piece.
type Piece uint8

// NoPiece is the zero Piece.
const NoPiece Piece = 0

// numPieces bounds Piece values, for arrays indexed by Piece.
const numPieces = 16

// MakePiece returns the piece of colour c and kind k, or NoPiece when either
// is not set.
func MakePiece(c Colour, k Kind) Piece {
	if k < General || k > Soldier {
		return NoPiece
	}
	switch c {
	case Red:
		return Piece(k)
	case Black:
		return Piece(k) | 8
	}
	return NoPiece
}

// Valid reports whether p is one of the 14 pieces.
func (p Piece) Valid() bool { return p.Kind() != NoKind && p < numPieces }

// Colour returns the piece's colour.
func (p Piece) Colour() Colour {
	switch {
	case !p.Valid():
		return NoColour
	case p&8 != 0:
		return Black
	}
	return Red
}

// Kind returns the piece's kind.
func (p Piece) Kind() Kind {
	if p >= numPieces {
		return NoKind
	}
	return Kind(p & 7)
}

// Letter returns the piece's B1 letter: upper case red, lower case black;
// '.' for NoPiece.
func (p Piece) Letter() byte {
	if !p.Valid() {
		return '.'
	}
	l := kindLetters[p.Kind()]
	if p.Colour() == Black {
		l += 'a' - 'A'
	}
	return l
}

// String returns the piece's letter, for example "R" or "c".
func (p Piece) String() string { return string(p.Letter()) }

// Name returns the piece in words, for example "black cannon".
func (p Piece) Name() string {
	if !p.Valid() {
		return "no piece"
	}
	return p.Colour().String() + " " + p.Kind().String()
}

// PieceFromLetter returns the piece that the B1 letter b stands for.
func PieceFromLetter(b byte) (Piece, bool) {
	colour := Red
	if b >= 'a' && b <= 'z' {
		colour, b = Black, b-('a'-'A')
	}
	for k := General; k <= Soldier; k++ {
		if kindLetters[k] == b {
			return MakePiece(colour, k), true
		}
	}
	return NoPiece, false
}

// standardCount returns how many of piece p a full set holds (B1).
func standardCount(p Piece) int8 {
	if !p.Valid() {
		return 0
	}
	return kindCount[p.Kind()]
}

// allPieces lists the 14 pieces in canonical order: red K A B R N C P, then
// black k a b r n c p.
var allPieces = [14]Piece{1, 2, 3, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14, 15}

// canCapture reports whether a piece of kind a may capture an adjacent
// revealed enemy of kind t by rank (B4.1). A cannon never captures by rank
// (B4.2).
func canCapture(a, t Kind) bool {
	switch {
	case a == Cannon:
		return false
	case a == Soldier && t == General:
		return true
	case a == General && t == Soldier:
		return false
	}
	return a <= t
}

// variant is Banqi's only rule set.
var variant = engine.Variant{
	Game:               engine.Banqi,
	ID:                 "standard",
	Name:               "Standard 8×4",
	Players:            2,
	Rated:              true,
	Draws:              true,
	DefaultBaseMS:      300000,
	DefaultIncrementMS: 3000,
	NeedsSetup:         true,
}

// Variants returns Banqi's rule sets: one, "standard" (B1–B6), which needs
// a layout as its setup.
func Variants() []engine.Variant { return []engine.Variant{variant} }

// New returns the start position of variant "standard" from a 32-letter
// layout (B1). An unknown variant wraps engine.ErrUnknownVariant; a bad
// layout wraps engine.ErrBadSetup.
func New(variantID, setup string) (engine.Position, error) {
	if variantID != variant.ID {
		return nil, fmt.Errorf("banqi variant %q: %w", variantID, engine.ErrUnknownVariant)
	}
	l, err := ParseLayout(setup)
	if err != nil {
		return nil, err
	}
	return l.Position(), nil
}

// Layout is the identity of the piece on each square at the start, in
// layout order a1, b1 … h4 (B1).
type Layout [NumSquares]Piece

// ParseLayout parses 32 letters for a1, b1 … h1, a2 … h4 (B1). It checks the
// letters and that the layout is exactly one full set: 1 K, 2 A, 2 B, 2 R,
// 2 N, 2 C, 5 P of each colour. Errors wrap engine.ErrBadSetup and name what
// is wrong and where.
func ParseLayout(s string) (Layout, error) {
	var l Layout
	for i := 0; i < len(s) && i < NumSquares; i++ {
		p, ok := PieceFromLetter(s[i])
		if !ok {
			return Layout{}, fmt.Errorf("%w: layout: unknown letter %q at %s (letter %d); want K A B R N C P in red upper case or black lower case (B1)",
				engine.ErrBadSetup, s[i], Square(i), i+1)
		}
		l[i] = p
	}
	if len(s) != NumSquares {
		return Layout{}, fmt.Errorf("%w: layout has %d letters, want 32, one for each square a1, b1 … h4 (B1)", engine.ErrBadSetup, len(s))
	}
	var n [numPieces]int8
	for _, p := range l {
		n[p]++
	}
	for _, p := range allPieces {
		if n[p] != standardCount(p) {
			return Layout{}, fmt.Errorf("%w: layout has %d %s (%c), want %d (B1)", engine.ErrBadSetup, n[p], plural(p.Name(), n[p]), p.Letter(), standardCount(p))
		}
	}
	return l, nil
}

func plural(name string, n int8) string {
	if n == 1 {
		return name
	}
	return name + "s"
}

// String returns the 32 letters of the layout (B1); ParseLayout is its
// inverse.
func (l Layout) String() string {
	var b [NumSquares]byte
	for i, p := range l {
		b[i] = p.Letter()
	}
	return string(b[:])
}

// Position returns the start position of the layout: every piece face down,
// the first seat to move, colours not fixed (B1, B2). The layout must be
// valid (from ParseLayout or LayoutFromSeed).
func (l Layout) Position() Position {
	var p Position
	for i, pc := range l {
		p.cells[i] = cell(pc) | faceDownBit
	}
	p.mover = engine.First
	return p
}

// standardSet is the canonical full set that LayoutFromSeed shuffles: red
// K A A B B R R N N C C P P P P P, then the same in black.
func standardSet() Layout {
	var l Layout
	i := 0
	for _, p := range allPieces {
		for range standardCount(p) {
			l[i] = p
			i++
		}
	}
	return l
}

// LayoutFromSeed turns a 32-byte seed into a layout, deterministically, so
// that a game can publish SeedCommitment(seed) at its start and the seed at
// its end, and anyone can check the layout. The algorithm, exactly:
//
//  1. Start from the canonical set: red K A A B B R R N N C C P P P P P, then
//     black k a a b b r r n n c c p p p p p, at indices 0–31.
//  2. A stream of 32-bit words: block j (j = 0, 1, …) is
//     SHA-256(seed ‖ j as 8 bytes big-endian); each block gives 8 words, read
//     as big-endian uint32 from its bytes 0–3, 4–7, … 28–31.
//  3. Fisher–Yates: for i from 31 down to 1, take words w from the stream
//     until w < 2³² − (2³² mod (i+1)) (rejection, so j is unbiased), let
//     j = w mod (i+1) and swap indices i and j.
//
// The result, read as squares a1, b1 … h4, is the layout.
func LayoutFromSeed(seed [32]byte) Layout {
	l := standardSet()
	s := wordStream{seed: seed, used: 8}
	for i := NumSquares - 1; i >= 1; i-- {
		n := uint64(i + 1)
		limit := (1 << 32) - (1<<32)%n
		w := uint64(s.next())
		for w >= limit {
			w = uint64(s.next())
		}
		j := int(w % n)
		l[i], l[j] = l[j], l[i]
	}
	return l
}

// wordStream yields the SHA-256 counter stream of LayoutFromSeed.
type wordStream struct {
	seed    [32]byte
	counter uint64
	block   [32]byte
	used    int // words of block already taken; 8 when empty
}

func (w *wordStream) next() uint32 {
	if w.used == 8 {
		var in [40]byte
		copy(in[:], w.seed[:])
		binary.BigEndian.PutUint64(in[32:], w.counter)
		w.block = sha256.Sum256(in[:])
		w.counter++
		w.used = 0
	}
	v := binary.BigEndian.Uint32(w.block[4*w.used:])
	w.used++
	return v
}

// SeedCommitment returns the lower-case hex SHA-256 of the seed: published
// at a game's start, it binds the layout without revealing it.
func SeedCommitment(seed [32]byte) string {
	h := sha256.Sum256(seed[:])
	return hex.EncodeToString(h[:])
}
