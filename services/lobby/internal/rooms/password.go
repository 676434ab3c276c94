package rooms

import "tabuleiro.dev/services/lobby/internal/passwd"

// Argon2 holds the argon2id parameters for new room password hashes
// (package passwd, which accounts' passwords share). Hashes carry their
// own parameters, so changing these never breaks existing rooms.
type Argon2 = passwd.Params

// DefaultArgon2 is passwd.Default: OWASP's minimum recommendation for
// argon2id.
func DefaultArgon2() Argon2 { return passwd.Default() }

// verify reports whether password matches the PHC-encoded argon2id hash.
func verify(encoded, password string) (bool, error) { return passwd.Verify(encoded, password) }
