// Package auth issues and verifies Tabuleiro's bearer tokens and carries the
// caller's identity through a request's context.
//
// Tokens are JWTs (RFC 7519) signed with HMAC-SHA256 under a key shared by
// the services (from configuration; GenerateKey makes one for local mode).
// Claims: "iss" "tabuleiro", "sub" the player id or service name, "iat",
// "exp", "knd" "player", "service" or "refresh", "name" the display name,
// "guest" true for guests, "fam" the sign-in a player or refresh token
// descends from and "gen" a refresh token's place in it. The lobby issues
// player tokens (bearer tokens for every call) and refresh tokens (only
// for lobby.v1 RefreshToken, which rotates them); services issue
// themselves service credentials for their calls to other services
// (lobby→match, match→bot).
package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
)

// MinKeySize is the shortest signing key accepted, in bytes (HS256 wants at
// least its hash size).
const MinKeySize = 32

const issuer = "tabuleiro"

// Errors from Verify. Both map to codes.Unauthenticated.
var (
	// ErrInvalidToken: the token is malformed, forged, or carries claims
	// Tabuleiro does not issue.
	ErrInvalidToken = errors.New("invalid token")
	// ErrExpiredToken: the token was genuine but has expired.
	ErrExpiredToken = errors.New("token expired")
	// ErrSignedOut: the token's sign-in was signed out (SignIns).
	ErrSignedOut = errors.New("signed out")
	// ErrSignInRevoked: every token of the sign-in was revoked (a refresh
	// token was used twice).
	ErrSignInRevoked = errors.New("sign-in revoked")
)

// Kind says whose token it is.
type Kind string

// The kinds of principal.
const (
	// KindPlayer is a person (guest or not), issued by the lobby.
	KindPlayer Kind = "player"
	// KindService is another Tabuleiro service calling with its own
	// credential.
	KindService Kind = "service"
	// KindRefresh is a player's refresh token: never a bearer token (Verify
	// refuses it), only exchanged by the lobby (VerifyRefresh).
	KindRefresh Kind = "refresh"
)

// Principal is the verified caller of a request.
type Principal struct {
	Kind Kind
	// Subject is the player id for a player, the service name for a service.
	Subject string
	// DisplayName is the player's display name; empty for services.
	DisplayName string
	// Guest reports whether the player signed in as a guest.
	Guest bool
	// ExpiresAt is when the token expires.
	ExpiresAt time.Time
	// Family is the sign-in the player token descends from (its refresh
	// token family); empty for services and for player tokens issued
	// before refresh tokens existed.
	Family string
}

// IsService reports whether the principal is a service credential.
func (p Principal) IsService() bool { return p.Kind == KindService }

// PlayerID returns the player id, or "" for a service.
func (p Principal) PlayerID() string {
	if p.Kind != KindPlayer {
		return ""
	}
	return p.Subject
}

// GenerateKey returns a fresh random signing key of MinKeySize bytes, for
// local mode and tests. Production reads its key from configuration.
func GenerateKey() ([]byte, error) {
	key := make([]byte, MinKeySize)
	if _, err := rand.Read(key); err != nil {
		return nil, fmt.Errorf("generate key: %w", err)
	}
	return key, nil
}

// EncodeKey returns key as standard base64, the form ParseKey reads.
func EncodeKey(key []byte) string { return base64.StdEncoding.EncodeToString(key) }

// ParseKey decodes a base64 (standard or URL alphabet, padded or not) key
// of at least MinKeySize bytes, as configuration holds it.
func ParseKey(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	var key []byte
	var err error
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if key, err = enc.DecodeString(s); err == nil {
			break
		}
	}
	if err != nil {
		return nil, errors.New("key is not base64")
	}
	if len(key) < MinKeySize {
		return nil, fmt.Errorf("key has %d bytes, want at least %d", len(key), MinKeySize)
	}
	return key, nil
}

// ParseKeys decodes a comma-separated list of keys (ParseKey each); empty
// gives none.
func ParseKeys(s string) ([][]byte, error) {
	var keys [][]byte
	for i, part := range strings.Split(s, ",") {
		if strings.TrimSpace(part) == "" {
			continue
		}
		k, err := ParseKey(part)
		if err != nil {
			return nil, fmt.Errorf("key %d: %w", i+1, err)
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// Option adjusts an Issuer or a Verifier.
type Option func(*clock)

type clock struct {
	now      func() time.Time
	previous [][]byte // keys a Verifier still accepts
}

// WithClock makes an Issuer or Verifier read the time from now (tests).
func WithClock(now func() time.Time) Option { return func(c *clock) { c.now = now } }

// WithPreviousKeys makes a Verifier also accept tokens signed with these
// keys: rotating the token key without logging everyone out. Deploy the
// new key with the old one as previous, wait the longest token TTL (a
// refresh token's), then drop the old one (deploy/README.md).
func WithPreviousKeys(keys ...[]byte) Option {
	return func(c *clock) { c.previous = append(c.previous, keys...) }
}

func newClock(opts []Option) clock {
	c := clock{now: time.Now}
	for _, o := range opts {
		o(&c)
	}
	return c
}

// KeyID names a key in a token's "kid" header without revealing it: the
// first 8 bytes of its SHA-256, in hex.
func KeyID(key []byte) string {
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:8])
}

type claims struct {
	jwt.RegisteredClaims
	Kind  Kind   `json:"knd"`
	Name  string `json:"name,omitempty"`
	Guest bool   `json:"guest,omitempty"`
	Fam   string `json:"fam,omitempty"`
	Gen   int64  `json:"gen,omitempty"`
}

// Issuer signs tokens. It is safe for concurrent use.
type Issuer struct {
	key   []byte
	clock clock
}

// NewIssuer returns an Issuer signing with key (at least MinKeySize bytes).
func NewIssuer(key []byte, opts ...Option) (*Issuer, error) {
	if len(key) < MinKeySize {
		return nil, fmt.Errorf("new issuer: key has %d bytes, want at least %d", len(key), MinKeySize)
	}
	return &Issuer{key: key, clock: newClock(opts)}, nil
}

// IssuePlayer returns a token for a player, valid for ttl, and its expiry.
func (i *Issuer) IssuePlayer(playerID, displayName string, guest bool, ttl time.Duration) (string, time.Time, error) {
	if playerID == "" {
		return "", time.Time{}, errors.New("issue player token: empty player id")
	}
	return i.issue(claims{Kind: KindPlayer, Name: displayName, Guest: guest}, playerID, ttl)
}

// IssuePlayerOf is IssuePlayer for a token of the refresh token family
// family (Principal.Family).
func (i *Issuer) IssuePlayerOf(family, playerID, displayName string, guest bool, ttl time.Duration) (string, time.Time, error) {
	if playerID == "" || family == "" {
		return "", time.Time{}, errors.New("issue player token: empty player id or family")
	}
	return i.issue(claims{Kind: KindPlayer, Name: displayName, Guest: guest, Fam: family}, playerID, ttl)
}

// Rename returns a player token like p's (same player, guest flag,
// family and expiry) under the display name name: renaming neither
// extends a token's life nor moves it to another sign-in. An expired p is
// ErrExpiredToken.
func (i *Issuer) Rename(p Principal, name string) (string, time.Time, error) {
	if p.Kind != KindPlayer || p.Subject == "" {
		return "", time.Time{}, errors.New("rename: not a player token")
	}
	now := i.clock.now().Truncate(time.Second)
	exp := p.ExpiresAt.Truncate(time.Second)
	if !exp.After(now) {
		return "", time.Time{}, ErrExpiredToken
	}
	return i.sign(claims{Kind: KindPlayer, Name: name, Guest: p.Guest, Fam: p.Family}, p.Subject, now, exp)
}

// Claimed returns a player token like p's (same player, name, family and
// expiry) that is no longer a guest's: the token of a guest that just
// became an account. An expired p is ErrExpiredToken.
func (i *Issuer) Claimed(p Principal) (string, time.Time, error) {
	if p.Kind != KindPlayer || p.Subject == "" {
		return "", time.Time{}, errors.New("claim: not a player token")
	}
	now := i.clock.now().Truncate(time.Second)
	exp := p.ExpiresAt.Truncate(time.Second)
	if !exp.After(now) {
		return "", time.Time{}, ErrExpiredToken
	}
	return i.sign(claims{Kind: KindPlayer, Name: p.DisplayName, Fam: p.Family}, p.Subject, now, exp)
}

// Refresh is what a refresh token carries.
type Refresh struct {
	PlayerID string
	// Family is the sign-in the token descends from; Generation its place
	// in the family's chain of rotations (1 for the sign-in's own).
	Family     string
	Generation int64
	ExpiresAt  time.Time
}

// IssueRefresh returns the refresh token of generation gen of family for
// playerID, valid for ttl, and its expiry. The lobby keeps which
// generation is current (RefreshToken rotates it).
func (i *Issuer) IssueRefresh(playerID, family string, gen int64, ttl time.Duration) (string, time.Time, error) {
	if playerID == "" || family == "" || gen < 1 {
		return "", time.Time{}, errors.New("issue refresh token: empty player id or family, or generation < 1")
	}
	return i.issue(claims{Kind: KindRefresh, Fam: family, Gen: gen}, playerID, ttl)
}

// IssueService returns a service credential for the named service (for
// example "lobby"), valid for ttl, and its expiry.
func (i *Issuer) IssueService(name string, ttl time.Duration) (string, time.Time, error) {
	if name == "" {
		return "", time.Time{}, errors.New("issue service token: empty service name")
	}
	return i.issue(claims{Kind: KindService}, name, ttl)
}

func (i *Issuer) issue(c claims, subject string, ttl time.Duration) (string, time.Time, error) {
	if ttl <= 0 {
		return "", time.Time{}, fmt.Errorf("issue token: ttl %v is not positive", ttl)
	}
	// JWT times have second precision: round so that the expiry we report
	// is the one the token carries.
	now := i.clock.now().Truncate(time.Second)
	return i.sign(c, subject, now, now.Add(ttl).Truncate(time.Second))
}

// sign signs c for subject, issued at now, expiring at exp.
func (i *Issuer) sign(c claims, subject string, now, exp time.Time) (string, time.Time, error) {
	c.Issuer = issuer
	c.Subject = subject
	c.IssuedAt = jwt.NewNumericDate(now)
	c.ExpiresAt = jwt.NewNumericDate(exp)
	t := jwt.NewWithClaims(jwt.SigningMethodHS256, c)
	t.Header["kid"] = KeyID(i.key)
	tok, err := t.SignedString(i.key)
	if err != nil {
		return "", time.Time{}, fmt.Errorf("sign token: %w", err)
	}
	return tok, exp, nil
}

// Verifier checks tokens. It is safe for concurrent use.
type Verifier struct {
	key   []byte
	keys  map[string][]byte // by KeyID: key and the previous ones
	clock clock
}

// NewVerifier returns a Verifier for tokens signed with key (and with the
// keys of WithPreviousKeys).
func NewVerifier(key []byte, opts ...Option) (*Verifier, error) {
	c := newClock(opts)
	v := &Verifier{key: key, keys: map[string][]byte{}, clock: c}
	for _, k := range append([][]byte{key}, c.previous...) {
		if len(k) < MinKeySize {
			return nil, fmt.Errorf("new verifier: key has %d bytes, want at least %d", len(k), MinKeySize)
		}
		v.keys[KeyID(k)] = k
	}
	return v, nil
}

// keyFor picks the key of a token's "kid"; a token without one (issued
// before key ids) is tried against every accepted key.
func (v *Verifier) keyFor(t *jwt.Token) (any, error) {
	kid, _ := t.Header["kid"].(string)
	if kid == "" {
		set := jwt.VerificationKeySet{}
		for _, k := range v.keys {
			set.Keys = append(set.Keys, k)
		}
		return set, nil
	}
	k, ok := v.keys[kid]
	if !ok {
		return nil, fmt.Errorf("key id %q is not one this service accepts (rotated out?)", kid)
	}
	return k, nil
}

// Verify checks a token's signature, issuer, kind and expiry and returns its
// principal. Errors wrap ErrInvalidToken or ErrExpiredToken. A refresh
// token is not a bearer token: ErrInvalidToken.
func (v *Verifier) Verify(token string) (Principal, error) {
	c, err := v.parse(token)
	if err != nil {
		return Principal{}, err
	}
	if c.Subject == "" || (c.Kind != KindPlayer && c.Kind != KindService) {
		return Principal{}, fmt.Errorf("%w: missing subject or kind", ErrInvalidToken)
	}
	return Principal{
		Kind:        c.Kind,
		Subject:     c.Subject,
		DisplayName: c.Name,
		Guest:       c.Guest,
		ExpiresAt:   c.ExpiresAt.Time,
		Family:      c.Fam,
	}, nil
}

// VerifyRefresh checks a refresh token (IssueRefresh) as Verify checks a
// bearer token: any other kind is ErrInvalidToken, an expired one
// ErrExpiredToken (no grace: a refresh token's own life bounds it).
func (v *Verifier) VerifyRefresh(token string) (Refresh, error) {
	c, err := v.parse(token)
	if err != nil {
		return Refresh{}, err
	}
	if c.Kind != KindRefresh || c.Subject == "" || c.Fam == "" || c.Gen < 1 {
		return Refresh{}, fmt.Errorf("%w: not a refresh token", ErrInvalidToken)
	}
	return Refresh{PlayerID: c.Subject, Family: c.Fam, Generation: c.Gen, ExpiresAt: c.ExpiresAt.Time}, nil
}

func (v *Verifier) parse(token string) (claims, error) {
	var c claims
	_, err := jwt.ParseWithClaims(token, &c, v.keyFor,
		jwt.WithValidMethods([]string{jwt.SigningMethodHS256.Alg()}),
		jwt.WithIssuer(issuer),
		jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(v.clock.now),
	)
	switch {
	case errors.Is(err, jwt.ErrTokenExpired):
		return claims{}, ErrExpiredToken
	case err != nil:
		return claims{}, fmt.Errorf("%w: %v", ErrInvalidToken, err)
	}
	return c, nil
}
