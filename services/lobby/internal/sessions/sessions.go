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
	"strconv"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/platform/signin"
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
	// ErrSignedOut: the family was ended by a sign-out.
	ErrSignedOut = errors.New("signed out")
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

// key is the family's hash, where the match service reads it too
// (package signin).
func (f *Families) key(family string) string { return signin.Key(f.prefix, family) }

func (f *Families) playerKey(playerID string) string { return f.prefix + "refresh-player:" + playerID }

// Start records a new family of playerID at generation 1, kept for ttl
// (the refresh token's life).
func (f *Families) Start(ctx context.Context, family, playerID string, ttl time.Duration) error {
	return f.StartDevice(ctx, family, playerID, "", time.Now(), ttl)
}

// StartDevice is Start for a sign-in on the named device at now, listed by
// List among the player's sign-ins.
func (f *Families) StartDevice(ctx context.Context, family, playerID, device string, now time.Time, ttl time.Duration) error {
	k := f.key(family)
	ms := now.UnixMilli()
	_, err := f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, k, "player", playerID, "gen", 1, "rotated_ms", 0, "created_ms", ms, "device", device)
		p.PExpire(ctx, k, ttl)
		return nil
	})
	if err != nil {
		return fmt.Errorf("start refresh family: %w", err)
	}
	// The player's index of families: a separate key (another slot in a
	// cluster), kept as long as its newest family.
	pk := f.playerKey(playerID)
	_, err = f.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZAdd(ctx, pk, redis.Z{Score: float64(ms), Member: family})
		p.PExpire(ctx, pk, ttl)
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
if h[3] == 'out' then return {'out'} end
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
	case "out":
		return 0, ErrSignedOut
	case "reused":
		return 0, ErrReused
	}
	return 0, ErrUnknown
}

// Revoked reports whether family was revoked (by a reuse of one of its
// refresh tokens, or a sign-out). An unknown or expired family is not
// revoked: its bearer tokens expire long before the family does.
func (f *Families) Revoked(ctx context.Context, family string) (bool, error) {
	err := f.Check(ctx, family)
	if errors.Is(err, ErrRevoked) || errors.Is(err, ErrSignedOut) {
		return true, nil
	}
	return false, err
}

// Check returns ErrRevoked for a family revoked by a reuse, ErrSignedOut
// for one signed out, nil otherwise (unknown and expired families
// included).
func (f *Families) Check(ctx context.Context, family string) error {
	v, err := f.rdb.HGet(ctx, f.key(family), "revoked").Result()
	switch {
	case errors.Is(err, redis.Nil):
		return nil
	case err != nil:
		return fmt.Errorf("read refresh family: %w", err)
	case v == "1":
		return ErrRevoked
	case v == "out":
		return ErrSignedOut
	}
	return nil
}

// Holds checks that a refresh token of family, generation gen, is
// playerID's current one, without exchanging it (a proof that the caller
// holds the sign-in, lobby.v1 MergeGuest). Errors: ErrUnknown (no such
// family, expired, another player's, or a generation never issued),
// ErrRevoked, ErrSignedOut, ErrReused (an older generation: exchanged
// already, so possibly a copy; the family itself is left as it is).
func (f *Families) Holds(ctx context.Context, family, playerID string, gen int64) error {
	h, err := f.rdb.HMGet(ctx, f.key(family), "player", "gen", "revoked").Result()
	if err != nil {
		return fmt.Errorf("read refresh family: %w", err)
	}
	player, _ := h[0].(string)
	cur, _ := h[1].(string)
	revoked, _ := h[2].(string)
	switch {
	case player == "" || player != playerID:
		return ErrUnknown
	case revoked == "1":
		return ErrRevoked
	case revoked == "out":
		return ErrSignedOut
	}
	n, err := strconv.ParseInt(cur, 10, 64)
	switch {
	case err != nil || gen > n:
		return ErrUnknown
	case gen < n:
		return ErrReused
	}
	return nil
}

// Session is one live family of a player's.
type Session struct {
	Family             string
	Device             string
	SignedIn, LastSeen time.Time
}

// List returns playerID's families that may still refresh, newest first;
// it forgets the expired ones.
func (f *Families) List(ctx context.Context, playerID string) ([]Session, error) {
	pk := f.playerKey(playerID)
	fams, err := f.rdb.ZRevRange(ctx, pk, 0, -1).Result()
	if err != nil {
		return nil, fmt.Errorf("list refresh families: %w", err)
	}
	var out []Session
	for _, fam := range fams {
		h, err := f.rdb.HMGet(ctx, f.key(fam), "player", "revoked", "created_ms", "rotated_ms", "device").Result()
		if err != nil {
			return nil, fmt.Errorf("read refresh family: %w", err)
		}
		if h[0] == nil {
			f.rdb.ZRem(ctx, pk, fam)
			continue
		}
		if h[0] != playerID || h[1] != nil {
			continue
		}
		str := func(v any) string { s, _ := v.(string); return s }
		created, _ := strconv.ParseInt(str(h[2]), 10, 64)
		rotated, _ := strconv.ParseInt(str(h[3]), 10, 64)
		out = append(out, Session{Family: fam, Device: str(h[4]),
			SignedIn: time.UnixMilli(created), LastSeen: time.UnixMilli(max(created, rotated))})
	}
	return out, nil
}

// signOut: KEYS[1] the family; ARGV player. Marks a live family of the
// player signed out; returns 1, or 0 when it is not a live one of theirs.
var signOut = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'player', 'revoked')
if not h[1] or h[1] ~= ARGV[1] or h[2] then return 0 end
redis.call('HSET', KEYS[1], 'revoked', 'out')
return 1
`)

// SignOut ends playerID's family: its refresh tokens no longer rotate
// (ErrSignedOut) and Check says so. It reports whether the family was a
// live one of the player's.
func (f *Families) SignOut(ctx context.Context, playerID, family string) (bool, error) {
	n, err := signOut.Run(ctx, f.rdb, []string{f.key(family)}, playerID).Int()
	if err != nil {
		return false, fmt.Errorf("sign out: %w", err)
	}
	return n == 1, nil
}

// SignOutAll ends every live family of playerID's and returns how many.
func (f *Families) SignOutAll(ctx context.Context, playerID string) (int, error) {
	return f.SignOutOthers(ctx, playerID, "")
}

// SignOutOthers ends every live family of playerID's but keep (the
// caller's own sign-in, after a password change) and returns how many.
func (f *Families) SignOutOthers(ctx context.Context, playerID, keep string) (int, error) {
	fams, err := f.rdb.ZRange(ctx, f.playerKey(playerID), 0, -1).Result()
	if err != nil {
		return 0, fmt.Errorf("list refresh families: %w", err)
	}
	n := 0
	for _, fam := range fams {
		if fam == keep {
			continue
		}
		ok, err := f.SignOut(ctx, playerID, fam)
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
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
