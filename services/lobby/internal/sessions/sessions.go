// Package sessions keeps the state of refresh token families in Redis, so
// that every lobby instance (and the one-process mode's embedded store)
// agrees on it: which generation of a family's refresh token is current,
// and whether the family is revoked.
//
// A family is one sign-in. Its refresh tokens (auth.IssueRefresh) carry
// the family and a generation; exchanging the current generation g makes
// g+1 current. Presenting an older one means a copy was used by someone
// else (a leaked token, or a thief racing the owner): the family is
// revoked and no token of it refreshes again. A retry of the generation
// just exchanged, within a short window (a response lost on the way), is
// not reuse: it gets the current generation issued again.
package sessions

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Errors of Rotate and ClaimLegacy.
var (
	// ErrUnknown: no such family (never started, or expired: its last
	// refresh token's life is over), or one of another player.
	ErrUnknown = errors.New("refresh token family unknown or expired")
	// ErrRevoked: the family was revoked by an earlier reuse.
	ErrRevoked = errors.New("refresh token family revoked")
	// ErrReused: the token was already exchanged; Rotate has revoked the
	// family.
	ErrReused = errors.New("refresh token already used")
	// ErrClaimed: a legacy bearer token was already exchanged.
	ErrClaimed = errors.New("token already exchanged")
)

// Families is the family store.
type Families struct {
	rdb    redis.UniversalClient
	prefix string
}

// New returns the store over rdb, its keys under prefix.
func New(rdb redis.UniversalClient, prefix string) *Families {
	return &Families{rdb: rdb, prefix: prefix}
}

func (f *Families) key(family string) string { return f.prefix + "refresh:" + family }

// Start records a new family of playerID at generation 1, kept for ttl
// (the refresh token's life).
func (f *Families) Start(ctx context.Context, family, playerID string, ttl time.Duration) error {
	k := f.key(family)
	_, err := f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, k, "player", playerID, "gen", 1, "rotated_ms", 0)
		p.PExpire(ctx, k, ttl)
		return nil
	})
	if err != nil {
		return fmt.Errorf("start refresh family: %w", err)
	}
	return nil
}

// rotate: KEYS[1] the family; ARGV player, generation presented, now (ms),
// retry window (ms), ttl (ms). Returns {"ok", gen to issue} or {error}.
var rotate = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'player', 'gen', 'revoked', 'rotated_ms')
if not h[1] or h[1] ~= ARGV[1] then return {'unknown'} end
if h[3] == '1' then return {'revoked'} end
local cur = tonumber(h[2])
local g = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
if g == cur then
  redis.call('HSET', KEYS[1], 'gen', cur + 1, 'rotated_ms', now)
  redis.call('PEXPIRE', KEYS[1], ARGV[5])
  return {'ok', cur + 1}
end
if g == cur - 1 and now - tonumber(h[4]) < tonumber(ARGV[4]) then
  return {'ok', cur}
end
if g > cur then return {'unknown'} end
redis.call('HSET', KEYS[1], 'revoked', '1')
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return {'reused'}
`)

// Rotate exchanges generation gen of family for playerID and returns the
// generation to issue next: gen+1, or the current one again for a retry
// of the generation just exchanged within retry. The family is then kept
// for ttl more. Errors: ErrUnknown, ErrRevoked, ErrReused (the family is
// now revoked).
func (f *Families) Rotate(ctx context.Context, family, playerID string, gen int64, now time.Time, retry, ttl time.Duration) (int64, error) {
	res, err := rotate.Run(ctx, f.rdb, []string{f.key(family)},
		playerID, gen, now.UnixMilli(), retry.Milliseconds(), ttl.Milliseconds()).Slice()
	if err != nil {
		return 0, fmt.Errorf("rotate refresh family: %w", err)
	}
	switch res[0] {
	case "ok":
		next, _ := res[1].(int64)
		return next, nil
	case "revoked":
		return 0, ErrRevoked
	case "reused":
		return 0, ErrReused
	}
	return 0, ErrUnknown
}

// Revoked reports whether family was revoked (by a reuse of one of its
// refresh tokens). An unknown or expired family is not revoked: its
// bearer tokens expire long before the family does.
func (f *Families) Revoked(ctx context.Context, family string) (bool, error) {
	v, err := f.rdb.HGet(ctx, f.key(family), "revoked").Result()
	if errors.Is(err, redis.Nil) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read refresh family: %w", err)
	}
	return v == "1", nil
}

// legacyKey is a JWS compact token's canonical form: its signed part and
// its signature decoded (base64url, spare bits ignored as the verifier
// ignores them, padding dropped); the text itself when the signature does
// not decode (the verifier refused such a token already).
func legacyKey(token string) string {
	i := strings.LastIndexByte(token, '.')
	if i < 0 {
		return token
	}
	sig, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(token[i+1:], "="))
	if err != nil {
		return token
	}
	return token[:i] + "." + string(sig)
}

// ClaimLegacy marks a bearer token issued before refresh tokens as
// exchanged, until its expiry: ErrClaimed if it already was. The claim is
// keyed on the token's signed part and its decoded signature, not on its
// text: the signature's last base64url character has spare bits that the
// verifier ignores, so one token has several spellings.
func (f *Families) ClaimLegacy(ctx context.Context, token string, expires time.Time, now time.Time) error {
	sum := sha256.Sum256([]byte(legacyKey(token)))
	ttl := max(expires.Sub(now), time.Second)
	ok, err := f.rdb.SetNX(ctx, f.prefix+"refresh-legacy:"+hex.EncodeToString(sum[:]), 1, ttl).Result()
	if err != nil {
		return fmt.Errorf("claim legacy token: %w", err)
	}
	if !ok {
		return ErrClaimed
	}
	return nil
}
