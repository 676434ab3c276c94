// Package lobby holds the lobby's domain vocabulary: players and their
// display names, time controls, bot levels, the match a lobby asks the
// match service to create, and the sentinel errors every lobby package
// returns. Transport (internal/rpc) maps the sentinels to gRPC codes in one
// place; nothing here knows about gRPC, Redis or SQL.
package lobby

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"tabuleiro.dev/pkg/engine"
)

// Sentinel errors. Wrap them with context; test them with errors.Is.
var (
	// ErrInvalid: the input is malformed (InvalidArgument). Usually an
	// *InvalidError that says which field and why.
	ErrInvalid = errors.New("invalid argument")
	// ErrNotFound: no such room, invite code, player or game.
	ErrNotFound = errors.New("not found")
	// ErrWrongPassword: a private room's password did not match.
	ErrWrongPassword = errors.New("wrong room password")
	// ErrPasswordNeeded: a private room was joined with no password at all
	// (a link without it); it is an ErrWrongPassword too.
	ErrPasswordNeeded = fmt.Errorf("%w: none given", ErrWrongPassword)
	// ErrTooManyAttempts: too many wrong passwords, or too many open rooms;
	// wait and retry.
	ErrTooManyAttempts = errors.New("too many attempts")
	// ErrPrecondition: valid input that the current state forbids (a full,
	// started or closed room, the host joining its own room, leaving a room
	// one is not in).
	ErrPrecondition = errors.New("failed precondition")
	// ErrReplaced: a ticket was replaced by a newer one of the same player
	// in the same queue, or withdrawn because a match started for its
	// player (a pairing in another queue, a room, a bot game).
	ErrReplaced = errors.New("ticket replaced")
	// ErrForbidden: the caller may not see or do this (watching a room one
	// is not in).
	ErrForbidden = errors.New("permission denied")
	// ErrUnauthenticated: a token is missing, forged or expired.
	ErrUnauthenticated = errors.New("unauthenticated")
	// ErrUsernameTaken: another account has the username (under case
	// folding and normalisation). Usually a *UsernameError.
	ErrUsernameTaken = errors.New("username taken")
	// ErrUsernameConfusable: the username looks like another account's
	// (the same confusables skeleton). Usually a *UsernameError.
	ErrUsernameConfusable = errors.New("username looks like another")
	// ErrAlreadyClaimed: the identity is an account already.
	ErrAlreadyClaimed = errors.New("already an account")
	// ErrBadCredentials: no account has the username, or the password is
	// wrong (one error for both: the answer does not tell which).
	ErrBadCredentials = errors.New("wrong username or password")
)

// UsernameError refuses a username that another account's (Existing)
// takes or looks like. It unwraps to ErrUsernameTaken or
// ErrUsernameConfusable.
type UsernameError struct {
	Existing string
	Err      error
}

// Error says which username is in the way.
func (e *UsernameError) Error() string {
	if errors.Is(e.Err, ErrUsernameConfusable) {
		return "username looks like the existing username " + strconvQuote(e.Existing) + "; choose another"
	}
	return "username " + strconvQuote(e.Existing) + " is taken; choose another"
}

// Unwrap returns the sentinel.
func (e *UsernameError) Unwrap() error { return e.Err }

// Params name the existing username, for the refusal's ErrorInfo.
func (e *UsernameError) Params() map[string]string { return map[string]string{"username": e.Existing} }

func strconvQuote(s string) string { return fmt.Sprintf("%q", s) }

// InvalidError names the field of a malformed input and what is wrong with
// it, for a person to read. It unwraps to ErrInvalid.
type InvalidError struct {
	Field string
	Msg   string
}

// Error returns "field: what is wrong".
func (e *InvalidError) Error() string { return e.Field + ": " + e.Msg }

// Unwrap returns ErrInvalid.
func (e *InvalidError) Unwrap() error { return ErrInvalid }

// Invalid returns an *InvalidError for field.
func Invalid(field, format string, args ...any) error {
	return &InvalidError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// PreconditionError says which state forbids the request. It unwraps to
// ErrPrecondition.
type PreconditionError struct{ Msg string }

// Error returns the message.
func (e *PreconditionError) Error() string { return e.Msg }

// Unwrap returns ErrPrecondition.
func (e *PreconditionError) Unwrap() error { return ErrPrecondition }

// Precondition returns a *PreconditionError.
func Precondition(format string, args ...any) error {
	return &PreconditionError{Msg: fmt.Sprintf(format, args...)}
}

// BusyError: a player is already in a live match (or one being created)
// and may be in one at a time. It unwraps to ErrPrecondition.
type BusyError struct {
	PlayerID string
	Match    string // the match id, or the request id of a match being created
}

// Error says who is busy with what.
func (e *BusyError) Error() string {
	return "player " + e.PlayerID + " is already in match " + e.Match + "; finish or resign it first"
}

// Unwrap returns ErrPrecondition.
func (e *BusyError) Unwrap() error { return ErrPrecondition }

// Is reports ErrBusy as well.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// Params returns the match the player is in, for the refusal's ErrorInfo.
func (e *BusyError) Params() map[string]string { return map[string]string{"match_id": e.Match} }

// ErrBusy: every *BusyError is one (errors.Is).
var ErrBusy = errors.New("already in a match")

// MaxEcho is the most bytes of a caller's input that an error message
// repeats (see Clip).
const MaxEcho = 64

// Clip returns s cut to MaxEcho bytes (on a rune boundary) with "…"
// appended when it was longer, for echoing untrusted input in messages.
func Clip(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	n := MaxEcho
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Display names: 2–24 characters, letters (any script), digits, spaces and
// '_', '-', '.'; no white space at either end.
const (
	MinNameLen = 2
	MaxNameLen = 24
)

// ValidateDisplayName returns nil for a valid display name and an
// *InvalidError that says what is wrong otherwise.
func ValidateDisplayName(name string) error {
	if strings.EqualFold(strings.Join(strings.Fields(name), " "), DeletedName) {
		return Invalid("display_name", "%q is what games show in place of a deleted player's name", DeletedName)
	}
	return validateName("display_name", name, MinNameLen, MaxNameLen, true)
}

// DeletedName is the name a deleted account's finished games show in
// place of its display name (DeleteAccount); clients show it in their
// player's language. No player may take it.
const DeletedName = "deleted player"

// Usernames (accounts): 3–24 characters under the display names' rules,
// without spaces.
const (
	MinUsernameLen = 3
	MaxUsernameLen = 24
)

// ValidateUsername returns nil for a well-formed username (the rules of
// display names, 3–24 characters, no spaces) and an *InvalidError that
// says what is wrong otherwise. Uniqueness and look-alikes are the
// accounts package's.
func ValidateUsername(name string) error {
	return validateName("username", name, MinUsernameLen, MaxUsernameLen, false)
}

// validateName checks a name of field: min to max characters, letters of
// one script, digits, '_', '-', '.' and, when spaces, inner spaces.
func validateName(field, name string, minLen, maxLen int, spaces bool) error {
	if !utf8.ValidString(name) {
		return Invalid(field, "is not valid UTF-8")
	}
	n := utf8.RuneCountInString(name)
	if n < minLen || n > maxLen {
		return Invalid(field, "must be %d to %d characters, got %d", minLen, maxLen, n)
	}
	if strings.TrimSpace(name) != name {
		return Invalid(field, "must not start or end with white space")
	}
	for i, r := range name {
		if blankLetter(r) {
			return Invalid(field, "character %U at byte %d shows as blank", r, i)
		}
	}
	// Fullwidth, mathematical and other compatibility forms ("Ｂｏｂ", "𝐁𝐨𝐛")
	// would pass for the plain name, and a decomposed accent for the
	// composed one: only the NFKC form of a name is taken.
	if plain := norm.NFKC.String(name); plain != name {
		return Invalid(field, "is not in its plain (NFKC) form: write it as %q", Clip(plain))
	}
	alnum := false
	for i, r := range name {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r):
			alnum = true
		case r == ' ' && spaces, r == '_', r == '-', r == '.':
		case !spaces:
			return Invalid(field, "character %q at byte %d is not allowed (letters, digits, _ - . only)", r, i)
		default:
			return Invalid(field, "character %q at byte %d is not allowed (letters, digits, space, _ - . only)", r, i)
		}
	}
	if !alnum {
		return Invalid(field, "needs at least one letter or digit")
	}
	// One script per name: "Аnа" with a Cyrillic А would pass for "Ana".
	first, firstRune := "", rune(0)
	for _, r := range name {
		sc := script(r)
		if sc == "" {
			continue
		}
		if first == "" {
			first, firstRune = sc, r
		} else if sc != first {
			return Invalid(field, "mixes %s (%q) and %s (%q) letters, as a look-alike of another name would: use the letters of one script", first, firstRune, sc, r)
		}
	}
	return nil
}

// blankLetter reports the letters that render as nothing: the Hangul
// fillers, which Unicode counts as letters.
func blankLetter(r rune) bool {
	switch r {
	case '\u115F', '\u1160', '\u3164', '\uFFA0':
		return true
	}
	return false
}

// script is the writing system of a letter for the one-script rule: its
// Unicode script, with Han, Hiragana and Katakana as one (Japanese mixes
// them) and Han and Hangul as one (Korean may); "" for a non-letter or a
// letter of no one script (the Katakana-Hiragana prolonged sound mark ー).
func script(r rune) string {
	if !unicode.IsLetter(r) || unicode.In(r, unicode.Common, unicode.Inherited) {
		return ""
	}
	for _, sc := range []string{"Latin", "Cyrillic", "Greek"} { // the common ones first
		if unicode.Is(unicode.Scripts[sc], r) {
			return sc
		}
	}
	if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul) {
		return "CJK"
	}
	for name, table := range unicode.Scripts {
		if unicode.Is(table, r) {
			return name
		}
	}
	return ""
}

// NewID returns an opaque, unguessable id: prefix followed by 26 base32
// characters from crypto/rand (130 bits).
func NewID(prefix string) string { return prefix + strings.ToLower(rand.Text()) }

// Player is a person as the lobby knows them.
type Player struct {
	ID          string
	DisplayName string
	// Addr is the client address the player signed in from (the key of
	// per-address limits); empty when unknown. Stored once, at sign-in.
	Addr string
	// Rating is the player's rating in the variant at hand; zero when the
	// variant is unrated or it does not matter.
	Rating float64
	// Username is the account's username; empty for a guest.
	Username string
}

// TimeControl is a Fischer clock in milliseconds; the zero value means no
// clock.
type TimeControl struct {
	BaseMS      int64
	IncrementMS int64
}

// None reports whether tc is "no clock".
func (tc TimeControl) None() bool { return tc == TimeControl{} }

// Clock ranges (game.v1 TimeControl).
const (
	MinBaseMS      = 1000
	MaxBaseMS      = 3 * 60 * 60 * 1000
	MaxIncrementMS = 10 * 60 * 1000
)

// Validate checks the ranges of a clock; "no clock" is valid.
func (tc TimeControl) Validate() error {
	if tc.None() {
		return nil
	}
	if tc.BaseMS < MinBaseMS || tc.BaseMS > MaxBaseMS {
		return Invalid("time_control.base_ms", "must be %d to %d, got %d", MinBaseMS, MaxBaseMS, tc.BaseMS)
	}
	if tc.IncrementMS < 0 || tc.IncrementMS > MaxIncrementMS {
		return Invalid("time_control.increment_ms", "must be 0 to %d, got %d", MaxIncrementMS, tc.IncrementMS)
	}
	return nil
}

// String returns "none" or "base+increment" in milliseconds.
func (tc TimeControl) String() string {
	if tc.None() {
		return "none"
	}
	return fmt.Sprintf("%d+%d", tc.BaseMS, tc.IncrementMS)
}

// BotLevel is a bot's strength, as in game.v1 BotLevel; zero means a person.
type BotLevel int8

// The levels.
const (
	NoBot BotLevel = iota
	BotEasy
	BotMedium
	BotHard
	BotExpert
)

// Valid reports whether l is one of the four levels.
func (l BotLevel) Valid() bool { return l >= BotEasy && l <= BotExpert }

// String returns "easy", "medium", "hard", "expert" or "none".
func (l BotLevel) String() string {
	switch l {
	case BotEasy:
		return "easy"
	case BotMedium:
		return "medium"
	case BotHard:
		return "hard"
	case BotExpert:
		return "expert"
	}
	return "none"
}

// Participant holds a seat: a person (PlayerID set) or a bot (Bot set).
type Participant struct {
	PlayerID    string
	DisplayName string
	Bot         BotLevel
	Rating      float64 // zero when unrated
	// Username is the account's username ("" for a guest or a bot): an
	// account is shown by it (DisplayName is then the username).
	Username string
}

// MatchSpec is a match the lobby asks the match service to create.
type MatchSpec struct {
	// RequestID is the idempotency key: a retry with the same id returns
	// the match created first ("room-<id>", "pair-<id>", "bot-<id>").
	RequestID string
	Game      engine.Game
	Variant   string
	First     Participant // SEAT_FIRST: white, moves first (Q5)
	Second    Participant // absent (zero) for a one-player variant
	Clock     TimeControl
	Rated     bool
	// Private: a private room's match, seen only by its players and the
	// spectators they invite.
	Private bool
	// OneDevice: both seats are played at one device (match.v1
	// CreateMatchRequest.one_device).
	OneDevice bool
}

// MatchCreator creates matches: the match.v1 client in production, a fake
// in tests. CreateMatch must be idempotent on spec.RequestID.
type MatchCreator interface {
	CreateMatch(ctx context.Context, spec MatchSpec) (matchID string, err error)
}

// Reserver keeps every player in at most one live match: whatever creates
// a match reserves its players first under the match's request id, then
// confirms the match or releases them (the matchmaker implements it).
// Reserve fails with a *BusyError when a player is in another match.
type Reserver interface {
	Reserve(ctx context.Context, ref string, players ...string) error
	Confirm(ctx context.Context, ref, matchID string, players ...string) error
	Release(ctx context.Context, ref string, players ...string) error
}

// VariantLookup returns the engine's description of a variant (the games
// registry's Lookup); errors wrap engine.ErrUnknownVariant.
type VariantLookup func(game engine.Game, variant string) (engine.Variant, error)

// CheckVariant validates a game, variant, clock and rated flag for a
// two-player game and returns the variant.
func CheckVariant(lookup VariantLookup, game engine.Game, variant string, tc TimeControl, rated bool) (engine.Variant, error) {
	v, err := lookup(game, variant)
	if err != nil {
		return engine.Variant{}, Invalid("variant", "unknown game %q or variant %q", game, Clip(variant))
	}
	if err := tc.Validate(); err != nil {
		return engine.Variant{}, err
	}
	if rated && !v.Rated {
		return engine.Variant{}, Invalid("rated", "variant %s/%s is never rated (Q5, C7)", game, variant)
	}
	return v, nil
}
