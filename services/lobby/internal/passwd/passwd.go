// Package passwd hashes and checks passwords with argon2id
// (golang.org/x/crypto/argon2, RFC 9106): private rooms' passwords and
// accounts' alike. Hashes are PHC strings that carry their own
// parameters, so changing Params never breaks a stored hash.
package passwd

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are the argon2id parameters of new hashes.
type Params struct {
	Time      uint32 // passes
	MemoryKiB uint32
	Threads   uint8
}

// Default is OWASP's minimum recommendation for argon2id (Password
// Storage Cheat Sheet, 2023): 19 MiB of memory, 2 passes, 1 thread; with a
// 16-byte random salt and a 32-byte key. About 40 ms of one core here.
func Default() Params { return Params{Time: 2, MemoryKiB: 19 * 1024, Threads: 1} }

const (
	saltLen = 16
	keyLen  = 32
)

// Hash returns password's argon2id hash in PHC string format:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key> (unpadded base64).
func (p Params) Hash(password string) string {
	salt := make([]byte, saltLen)
	_, _ = rand.Read(salt) // crypto/rand.Read never fails (Go 1.24+)
	key := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, keyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, p.MemoryKiB, p.Time, p.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

// ErrBadHash: a stored hash is not an argon2id PHC string.
var ErrBadHash = errors.New("malformed password hash")

// Verify reports whether password matches the PHC-encoded argon2id hash,
// comparing the keys in constant time.
func Verify(encoded, password string) (bool, error) {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false, ErrBadHash
	}
	var version int
	var p Params
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, ErrBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.MemoryKiB, &p.Time, &p.Threads); err != nil ||
		p.Time == 0 || p.Threads == 0 || p.MemoryKiB > 1<<22 {
		return false, ErrBadHash
	}
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(parts[4])
	if err != nil {
		return false, ErrBadHash
	}
	want, err := b64.DecodeString(parts[5])
	if err != nil || len(want) == 0 {
		return false, ErrBadHash
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.MemoryKiB, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
