// Package engine holds what every Tabuleiro game shares: seats, outcomes and
// their reasons, the errors a ply can fail with, and the Position and View
// interfaces that the game packages (quoridor, corners, banqi) implement.
//
// The rules themselves live in the game packages; package games is the
// registry that builds a position from a game id, a variant id and a setup.
// The engine is pure and deterministic: no I/O, no logging, no goroutines,
// randomness only through a caller's *rand.Rand or seed. Rules are cited by
// their RULES.md section (Q for Quoridor, C for Corners, B for Banqi).
package engine

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Game names one of the games Tabuleiro serves, as used in the API and in
// records: "quoridor", "corners" or "banqi".
type Game string

// The games.
const (
	Quoridor Game = "quoridor"
	Corners  Game = "corners"
	Banqi    Game = "banqi"
)

// Seat is one of the two players of a game. First moves first: white in
// Quoridor and Corners, "first" in Banqi (whose colours are fixed by the
// first reveal, B2). The zero value NoSeat means "nobody" (a spectator, or
// no winner).
type Seat int8

// The seats.
const (
	NoSeat Seat = iota
	First
	Second
)

// Other returns the opponent of s; NoSeat for NoSeat.
func (s Seat) Other() Seat {
	switch s {
	case First:
		return Second
	case Second:
		return First
	default:
		return NoSeat
	}
}

// Index returns 0 for First and 1 for Second, for indexing two-element
// arrays. It panics on NoSeat, which has no index.
func (s Seat) Index() int {
	switch s {
	case First:
		return 0
	case Second:
		return 1
	}
	panic(fmt.Sprintf("engine: seat %d has no index", s))
}

// String returns "first", "second" or "none". Games that name seats by
// colour ("white", "black") say so in their own notation.
func (s Seat) String() string {
	switch s {
	case First:
		return "first"
	case Second:
		return "second"
	default:
		return "none"
	}
}

// Result says whether a game goes on, was won, or was drawn. The zero value
// is Ongoing.
type Result int8

// The results.
const (
	Ongoing Result = iota
	Win
	Draw
)

// String returns "ongoing", "win" or "draw".
func (r Result) String() string {
	switch r {
	case Win:
		return "win"
	case Draw:
		return "draw"
	default:
		return "ongoing"
	}
}

// Reason says why a game ended. The engine decides the rule-based reasons;
// the match service adds the ones that come from outside the board
// (resignation, flag, abandonment, agreement, abort).
type Reason int8

// The reasons. Each names the rule that ends the game.
const (
	NoReason Reason = iota
	// ReasonGoal: a Quoridor pawn reached its goal rank (Q4), or a Corners
	// player filled the opponent's home (C1, C4).
	ReasonGoal
	// ReasonPlyLimit: Quoridor limit200 reached 200 plies (Q4); Banqi played
	// 120 plies without a capture or a reveal (B5.2).
	ReasonPlyLimit
	// ReasonMoveLimit: Corners reached its last move and was scored by the
	// pieces in the opponent's home (C6.3).
	ReasonMoveLimit
	// ReasonDeadline: a Corners player still had a piece at home after the
	// leave-home deadline (C5.1).
	ReasonDeadline
	// ReasonReturnHome: a Corners ply after the deadline ended in the mover's
	// own home (C5.2).
	ReasonReturnHome
	// ReasonRepetition: the same position with the same side to move for the
	// third time (C6.4).
	ReasonRepetition
	// ReasonNoLegalMove: the side to move has no legal ply (C6.2 draw, B5.1
	// loss).
	ReasonNoLegalMove
	// ReasonNoPieces: the side to move has no pieces left (B5.1).
	ReasonNoPieces
	// ReasonResignation: a player resigned.
	ReasonResignation
	// ReasonTime: a player's clock reached zero (flag fall).
	ReasonTime
	// ReasonAbandonment: a player stayed disconnected past the reconnection
	// window.
	ReasonAbandonment
	// ReasonAgreement: a draw offer was accepted.
	ReasonAgreement
	// ReasonAborted: the game ended before each side had made a ply
	// (nobody started it, or a side resigned, lost on time or left before
	// its first ply) and does not count.
	ReasonAborted
	// ReasonCompleted: a one-player training game filled the opposite home.
	ReasonCompleted
)

var reasonNames = [...]string{
	NoReason:          "none",
	ReasonGoal:        "goal",
	ReasonPlyLimit:    "ply-limit",
	ReasonMoveLimit:   "move-limit",
	ReasonDeadline:    "deadline",
	ReasonReturnHome:  "return-home",
	ReasonRepetition:  "repetition",
	ReasonNoLegalMove: "no-legal-move",
	ReasonNoPieces:    "no-pieces",
	ReasonResignation: "resignation",
	ReasonTime:        "time",
	ReasonAbandonment: "abandonment",
	ReasonAgreement:   "agreement",
	ReasonAborted:     "aborted",
	ReasonCompleted:   "completed",
}

// String returns the reason's kebab-case name, for example "ply-limit".
func (r Reason) String() string {
	if r >= 0 && int(r) < len(reasonNames) {
		return reasonNames[r]
	}
	return fmt.Sprintf("reason(%d)", r)
}

// ParseReason is the inverse of Reason.String.
func ParseReason(s string) (Reason, error) {
	for i, n := range reasonNames {
		if n == s {
			return Reason(i), nil
		}
	}
	return NoReason, fmt.Errorf("unknown reason %q", s)
}

// Outcome is how a game stands: ongoing (the zero value), a win for Winner,
// or a draw, with the reason.
type Outcome struct {
	Result Result
	Winner Seat // set only when Result is Win
	Reason Reason
}

// Over reports whether the game has ended.
func (o Outcome) Over() bool { return o.Result != Ongoing }

// WinFor returns the outcome of a win for seat s by reason r.
func WinFor(s Seat, r Reason) Outcome { return Outcome{Result: Win, Winner: s, Reason: r} }

// DrawBy returns the outcome of a draw by reason r.
func DrawBy(r Reason) Outcome { return Outcome{Result: Draw, Reason: r} }

// String returns "ongoing", "first wins (goal)" or "draw (repetition)".
func (o Outcome) String() string {
	switch o.Result {
	case Win:
		return fmt.Sprintf("%s wins (%s)", o.Winner, o.Reason)
	case Draw:
		return fmt.Sprintf("draw (%s)", o.Reason)
	default:
		return "ongoing"
	}
}

// Errors that a ply can fail with. They are wrapped with the ply and the
// rule broken: test them with errors.Is.
var (
	// ErrIllegalMove: the ply breaks a rule of the game; the message names
	// the rule.
	ErrIllegalMove = errors.New("illegal ply")
	// ErrGameOver: the game has ended; no ply may follow.
	ErrGameOver = errors.New("game is over")
	// ErrNotYourTurn: the ply was made for the seat that is not to move.
	ErrNotYourTurn = errors.New("not your turn")
	// ErrUnknownVariant: the game or variant id is not one Tabuleiro serves.
	ErrUnknownVariant = errors.New("unknown variant")
	// ErrBadSetup: a setup (Banqi's layout) or a position encoding is
	// malformed or impossible.
	ErrBadSetup = errors.New("bad setup")
)

// ErrSyntax: notation does not parse; every *SyntaxError unwraps to it.
var ErrSyntax = errors.New("syntax error")

// SyntaxError reports notation that cannot be parsed: Input is the text
// given and Offset the byte offset where it went wrong.
type SyntaxError struct {
	Input  string
	Offset int
	Msg    string
	// Game is the game whose notation it is, when the parser says (a
	// position's ParsePly does): a client names that game's forms.
	Game Game
}

// InGame sets the game of a *SyntaxError in err's chain to g and returns
// err (nil stays nil).
func InGame(err error, g Game) error {
	var se *SyntaxError
	if errors.As(err, &se) && se.Game == "" {
		se.Game = g
	}
	return err
}

// Error names the input, the offset and what was expected.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("syntax error in %q at offset %d: %s", e.Input, e.Offset, e.Msg)
}

// Unwrap returns ErrSyntax.
func (e *SyntaxError) Unwrap() error { return ErrSyntax }

// Params returns the input as "ply", the offset and, when known, the
// game, for a client to say where the notation goes wrong and what a ply
// of that game looks like.
func (e *SyntaxError) Params() map[string]string {
	m := map[string]string{"ply": e.Input, "offset": strconv.Itoa(e.Offset)}
	if e.Game != "" {
		m["game"] = string(e.Game)
	}
	return m
}

// FirstRune is the character s starts with, for a syntax error's message
// ("got 'é'", not the first byte of its encoding); utf8.RuneError when s
// is empty or does not start with valid UTF-8.
func FirstRune(s string) rune {
	r, _ := utf8.DecodeRuneInString(s)
	return r
}

// RuleError is an illegal ply with the rule it breaks. It unwraps to
// ErrIllegalMove.
//
// Detail and Args say what Msg says for a machine, so that a client can
// render the refusal in its player's language: Detail is a stable
// snake_case key of the refusal ("wall_overlaps"; the same key may serve
// several rules when the words are the same), and Args are the values Msg
// names, by parameter name: squares and plies in notation, numbers in
// decimal, and terms as stable English ids (a Banqi piece kind such as
// "cannon", a colour or seat such as "red" or "white").
type RuleError struct {
	Ply    string            // the ply as given, in notation
	Rule   string            // the RULES.md section, for example "Q3.4"
	Msg    string            // what is wrong, in English, for a person to read
	Detail string            // the refusal's stable key, for example "wall_overlaps"
	Args   map[string]string // Msg's values by name, for example "wall": "e5h"
}

// Params returns the refusal's parameters as one map: "ply", "rule" and
// "detail", then every Arg (an Arg never overrides those three).
func (e *RuleError) Params() map[string]string {
	out := make(map[string]string, len(e.Args)+3)
	for k, v := range e.Args {
		out[k] = v
	}
	out["ply"], out["rule"], out["detail"] = e.Ply, e.Rule, e.Detail
	return out
}

// Error names the ply, the rule and what is wrong.
func (e *RuleError) Error() string {
	return fmt.Sprintf("illegal ply %s: %s (%s)", e.Ply, e.Msg, e.Rule)
}

// Unwrap returns ErrIllegalMove.
func (e *RuleError) Unwrap() error { return ErrIllegalMove }

// Ply is one player's turn in its game's own encoding. String returns it in
// RULES.md notation; the game's ParsePly is its inverse.
type Ply interface {
	String() string
}

// Variant describes one rule set of a game.
type Variant struct {
	Game Game
	ID   string // for example "standard", "classic-3x3"
	// Name is a short human title, for example "Classic 3×3".
	Name string
	// Players is 2, or 1 for Corners' training room.
	Players int
	// Rated reports whether games of this variant may be rated.
	Rated bool
	// Draws reports whether players may offer and accept draws.
	Draws bool
	// DefaultBaseMS and DefaultIncrementMS are the default Fischer clock of
	// rated online games, in milliseconds (Q5, C7); zero means no clock.
	DefaultBaseMS      int64
	DefaultIncrementMS int64
	// NeedsSetup reports whether the initial position needs a setup string
	// (Banqi's 32-letter layout, B1).
	NeedsSetup bool
}

// View is what one seat, or a spectator, may see of a position. For games
// of perfect information (Quoridor, Corners) a view is the position itself;
// for Banqi it is a type of its own that cannot hold the identity of a
// face-down piece (B6). Everything a bot needs to choose a ply is here.
type View interface {
	// Variant returns the rule set.
	Variant() Variant
	// ToMove returns the seat to move; NoSeat when the game is over.
	ToMove() Seat
	// Plies returns the number of plies played since the start.
	Plies() int
	// Legal returns the legal plies of the side to move, in the game's
	// canonical order; none when the game is over.
	Legal() []Ply
	// ParsePly parses a ply in RULES.md notation, resolving shorthand (a
	// Corners chain given by its ends, C1). It checks syntax and squares, not
	// legality; errors are *SyntaxError.
	ParsePly(s string) (Ply, error)
	// Outcome returns how the game stands, as far as the board decides it.
	Outcome() Outcome
	// Encode returns a text encoding of the view; the game's decoder is its
	// exact inverse.
	Encode() string
	// Render draws the view as text: the board with coordinates, for
	// terminals and the rules command. A position renders the whole truth.
	Render() string
}

// Position is the whole truth of a game in progress, hidden pieces
// included. Values are immutable: Play returns a new position and never
// changes its receiver, so positions may be shared between goroutines.
type Position interface {
	View
	// Play applies a ply for the side to move and returns the new position.
	// Errors wrap ErrIllegalMove (as a *RuleError naming the rule) or
	// ErrGameOver.
	Play(p Ply) (Position, error)
	// View returns what seat s may see; NoSeat gives the spectators' view.
	View(s Seat) View
	// SeatName returns how the game calls a seat: "white"/"black" in
	// Quoridor and Corners, "first"/"second" (or the colour once fixed) in
	// Banqi.
	SeatName(s Seat) string
}

// Refusal returns the RuleError of ply breaking rule: detail is its stable
// key, msg its English text, and kv its Args as name, value pairs.
func Refusal(ply, rule, detail, msg string, kv ...string) *RuleError {
	e := &RuleError{Ply: ply, Rule: rule, Msg: msg, Detail: detail}
	if len(kv) > 0 {
		e.Args = make(map[string]string, len(kv)/2)
		for i := 0; i+1 < len(kv); i += 2 {
			e.Args[kv[i]] = kv[i+1]
		}
	}
	return e
}
