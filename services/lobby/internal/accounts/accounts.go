// Package accounts holds what makes a guest an account: usernames
// (normalised, unique, homoglyph-safe), passwords (argon2id, package
// passwd) and the limits on password guesses. The SQL rows are
// sqlstore's, the RPCs internal/rpc's.
//
// A username is compared by its key, its PRECIS UsernameCaseMapped form
// (RFC 8265: fullwidth mapped, case folded, NFC), and refused when its
// skeleton, the Unicode confusables skeleton of UTS #39 of the key (case
// folded again, since skeletons map some letters to capitals: "0" to "O"),
// equals another account's: "rn" looks like "m", "a1ice" like "alice",
// Cyrillic "асе" like Latin "ace". Both are unique columns of the
// accounts table, so two claims racing for look-alikes cannot both win.
package accounts

import (
	"errors"
	"unicode/utf8"

	"github.com/mtibben/confusables"
	"golang.org/x/text/cases"
	"golang.org/x/text/secure/precis"

	"tabuleiro.dev/services/lobby/internal/lobby"
)

// Username is a checked username.
type Username struct {
	Name     string // as its owner wrote it, shown to others
	Key      string // PRECIS UsernameCaseMapped: equal keys are one username
	Skeleton string // confusables skeleton of Key: equal skeletons look alike
	// Shown is the skeleton of Name as written ("AIice", a capital I,
	// looks like "Alice" though its key is "aiice"); a new username whose
	// Skeleton or Shown equals an account's Skeleton or Shown is refused.
	Shown string
}

var fold = cases.Fold()

// Key returns the comparison key of a username as typed at sign-in, and
// false when it cannot be one.
func Key(name string) (string, bool) {
	k, err := precis.UsernameCaseMapped.String(name)
	return k, err == nil && k != ""
}

// ParseUsername checks a new username: the display names' rules without
// spaces, 3–24 characters (lobby.ValidateUsername), and a valid PRECIS
// username. Errors are *lobby.InvalidError.
func ParseUsername(name string) (Username, error) {
	if err := lobby.ValidateUsername(name); err != nil {
		return Username{}, err
	}
	key, ok := Key(name)
	if !ok {
		return Username{}, lobby.Invalid("username", "is not a valid username (PRECIS, RFC 8265)")
	}
	shown, err := precis.UsernameCasePreserved.String(name)
	if err != nil {
		shown = key
	}
	return Username{Name: name, Key: key, Skeleton: Skeleton(key), Shown: Skeleton(shown)}, nil
}

// Skeleton is the confusables skeleton of a username (key), case folded
// and skeletonised again so that it is closed under case.
func Skeleton(key string) string {
	return confusables.Skeleton(fold.String(confusables.Skeleton(key)))
}

// Passwords: 8 to 128 characters (NIST SP 800-63B's minimum; long
// passphrases welcome), any characters, compared after the PRECIS
// OpaqueString profile (RFC 8265: NFC, non-ASCII spaces mapped to ' '),
// so that one password typed on two keyboards is one password.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 128
)

// ParsePassword checks a new password and returns its normalised form.
func ParsePassword(pw string) (string, error) {
	if !utf8.ValidString(pw) {
		return "", lobby.Invalid("password", "is not valid UTF-8")
	}
	n := utf8.RuneCountInString(pw)
	if n < MinPasswordLen || n > MaxPasswordLen {
		return "", lobby.Invalid("password", "must be %d to %d characters, got %d", MinPasswordLen, MaxPasswordLen, n)
	}
	norm, err := precis.OpaqueString.String(pw)
	if err != nil {
		return "", lobby.Invalid("password", "has characters a password may not hold (control characters, say)")
	}
	return norm, nil
}

// NormalizePassword is the form of a password typed at sign-in that is
// compared with the stored hash (ParsePassword's); a password that
// ParsePassword would refuse is returned as is, and matches nothing.
func NormalizePassword(pw string) string {
	if norm, err := precis.OpaqueString.String(pw); err == nil {
		return norm
	}
	return pw
}

// LookAlike reports whether two usernames look alike: one's skeletons
// meet the other's.
func LookAlike(a, b Username) bool {
	return a.Skeleton == b.Skeleton || a.Skeleton == b.Shown || a.Shown == b.Skeleton || a.Shown == b.Shown
}

// ErrPasswordWrong is a wrong current password given to change it.
var ErrPasswordWrong = errors.New("the current password is wrong")
