package rooms

import (
	"crypto/rand"
	"strings"
)

// inviteAlphabet has no 0/O, 1/I/L or U: 30 symbols that survive being read
// aloud or copied by hand. Eight of them give 30^8 ≈ 6.6e11 codes (39 bits);
// with the wrong-guess limit per player and room that is out of reach of
// guessing.
const inviteAlphabet = "23456789ABCDEFGHJKMNPQRSTVWXYZ"

// InviteLen is the length of an invite code.
const InviteLen = 8

// newInviteCode returns a code drawn uniformly from crypto/rand.
func newInviteCode() string {
	var b strings.Builder
	buf := make([]byte, 32)
	for b.Len() < InviteLen {
		_, _ = rand.Read(buf)
		for _, c := range buf {
			// Reject the tail so that every symbol is equally likely.
			if int(c) < 256-256%len(inviteAlphabet) && b.Len() < InviteLen {
				b.WriteByte(inviteAlphabet[int(c)%len(inviteAlphabet)])
			}
		}
	}
	return b.String()
}

// normalizeInvite upper-cases a code typed by a person (codes are
// case-insensitive) and drops spaces and dashes around groups.
func normalizeInvite(code string) string {
	code = strings.ToUpper(code)
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, code)
}
