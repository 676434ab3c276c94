package rooms

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"

	"golang.org/x/crypto/argon2"
)

// Argon2 holds the argon2id parameters for new password hashes. Hashes
// carry their own parameters (PHC string format), so changing these never
// breaks existing rooms.
type Argon2 struct {
	Time      uint32 // passes
	MemoryKiB uint32
	Threads   uint8
}

// DefaultArgon2 is OWASP's minimum recommendation for argon2id (2023):
// 19 MiB of memory, 2 passes, 1 thread; 16-byte salt, 32-byte key.
func DefaultArgon2() Argon2 { return Argon2{Time: 2, MemoryKiB: 19 * 1024, Threads: 1} }

const (
	saltLen = 16
	keyLen  = 32
)

// hash returns password's argon2id hash in PHC string format:
// $argon2id$v=19$m=19456,t=2,p=1$<salt>$<key> (unpadded base64).
func (a Argon2) hash(password string) string {
	salt := make([]byte, saltLen)
	_, _ = rand.Read(salt) // crypto/rand.Read never fails (Go 1.24+)
	key := argon2.IDKey([]byte(password), salt, a.Time, a.MemoryKiB, a.Threads, keyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s",
		argon2.Version, a.MemoryKiB, a.Time, a.Threads, b64.EncodeToString(salt), b64.EncodeToString(key))
}

var errBadHash = errors.New("malformed password hash")

// verify reports whether password matches the PHC-encoded argon2id hash.
func verify(encoded, password string) (bool, error) {
	var version int
	var a Argon2
	var saltB64, keyB64 string
	var parts [6]string
	n := 0
	start := 0
	for i := 0; i <= len(encoded) && n < 6; i++ {
		if i == len(encoded) || encoded[i] == '$' {
			parts[n] = encoded[start:i]
			n++
			start = i + 1
		}
	}
	if n != 6 || parts[0] != "" || parts[1] != "argon2id" {
		return false, errBadHash
	}
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errBadHash
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &a.MemoryKiB, &a.Time, &a.Threads); err != nil {
		return false, errBadHash
	}
	saltB64, keyB64 = parts[4], parts[5]
	b64 := base64.RawStdEncoding
	salt, err := b64.DecodeString(saltB64)
	if err != nil {
		return false, errBadHash
	}
	want, err := b64.DecodeString(keyB64)
	if err != nil || len(want) == 0 {
		return false, errBadHash
	}
	got := argon2.IDKey([]byte(password), salt, a.Time, a.MemoryKiB, a.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
