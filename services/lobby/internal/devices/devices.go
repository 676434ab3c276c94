// Package devices keeps the device sign-ins of RFC 8628 (the OAuth 2.0
// device authorization grant) in Redis, so that every lobby instance
// shares them: a device without a browser (a terminal) starts one and
// gets a secret device code and a short user code; the player types the
// user code on a page where they are signed in and approves; the device,
// polling with its device code, then gets a sign-in of that account.
//
// A sign-in is two keys: the device code's hash (its state, the device's
// name, the approving player, the polling interval and the earliest next
// poll), keyed by the SHA-256 of the device code so that Redis never holds
// the secret; and the user code, naming that hash. Each key is changed by
// one single-key script, so they may live in different cluster slots.
package devices

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// Errors of Approve and Poll.
var (
	// ErrUnknownCode: no pending sign-in has this user code.
	ErrUnknownCode = errors.New("no device sign-in waits for this code")
	// ErrPending: not answered yet (RFC 8628 authorization_pending).
	ErrPending = errors.New("the sign-in is not approved yet")
	// ErrDenied: the player refused (access_denied).
	ErrDenied = errors.New("the sign-in was refused")
	// ErrExpired: no such device code, or expired, or spent (expired_token).
	ErrExpired = errors.New("the device code expired or was spent")
)

// SlowDownError: the device polled before its interval was over
// (slow_down); Interval is the new, longer one.
type SlowDownError struct{ Interval time.Duration }

func (e *SlowDownError) Error() string {
	return fmt.Sprintf("polled too soon: the interval is now %s", e.Interval)
}

// Store is the device sign-in store.
type Store struct {
	rdb    redis.UniversalClient
	prefix string
	// TTL is how long both codes live (default 10 minutes); Interval the
	// polling interval a new sign-in starts with (default 5 s).
	TTL, Interval time.Duration
}

// New returns the store over rdb, its keys under prefix.
func New(rdb redis.UniversalClient, prefix string) *Store {
	return &Store{rdb: rdb, prefix: prefix, TTL: 10 * time.Minute, Interval: 5 * time.Second}
}

// userAlphabet is RFC 8628's suggestion (section 6.1): consonants
// without vowels (no words) and without look-alikes.
const userAlphabet = "BCDFGHJKLMNPQRSTVWXZ"

// UserCodeLen is the length of a user code, shown as XXXX-XXXX.
const UserCodeLen = 8

// NormalizeUserCode is the user code as typed, upper-cased without
// spaces or dashes; "" when it cannot be one.
func NormalizeUserCode(s string) string {
	var b strings.Builder
	for _, r := range strings.ToUpper(s) {
		switch {
		case r == '-' || r == ' ' || r == '\t':
		case strings.ContainsRune(userAlphabet, r):
			b.WriteRune(r)
		default:
			return ""
		}
	}
	if b.Len() != UserCodeLen {
		return ""
	}
	return b.String()
}

// FormatUserCode shows a normalised user code as XXXX-XXXX.
func FormatUserCode(c string) string {
	if len(c) != UserCodeLen {
		return c
	}
	return c[:4] + "-" + c[4:]
}

func (s *Store) deviceKey(deviceCode string) string {
	h := sha256.Sum256([]byte(deviceCode))
	return s.prefix + "device:" + hex.EncodeToString(h[:])
}

func (s *Store) userKey(userCode string) string { return s.prefix + "device-user:" + userCode }

// Start records a new device sign-in of the named device at now and
// returns its device code, its user code (normalised) and when both
// expire.
func (s *Store) Start(ctx context.Context, device string, now time.Time) (deviceCode, userCode string, exp time.Time, err error) {
	deviceCode = "dc_" + rand.Text() + rand.Text()
	dk := s.deviceKey(deviceCode)
	for range 5 { // 20^8 codes: a clash is rare, several in a row never
		userCode = randomUserCode()
		ok, err := s.rdb.SetNX(ctx, s.userKey(userCode), dk, s.TTL).Result()
		if err != nil {
			return "", "", time.Time{}, fmt.Errorf("start device sign-in: %w", err)
		}
		if ok {
			break
		}
		userCode = ""
	}
	if userCode == "" {
		return "", "", time.Time{}, errors.New("start device sign-in: no free user code")
	}
	_, err = s.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.HSet(ctx, dk, "state", "pending", "user", userCode, "device", device,
			"interval_ms", s.Interval.Milliseconds(), "next_ms", now.Add(s.Interval).UnixMilli())
		p.PExpire(ctx, dk, s.TTL)
		return nil
	})
	if err != nil {
		return "", "", time.Time{}, fmt.Errorf("start device sign-in: %w", err)
	}
	return deviceCode, userCode, now.Add(s.TTL), nil
}

func randomUserCode() string {
	b := make([]byte, UserCodeLen)
	_, _ = rand.Read(b) // never fails (crypto/rand)
	for i := range b {
		// 256 = 12*20 + 16: the first 16 letters are a little likelier
		// (13/256 against 12/256), which costs the code no useful strength.
		b[i] = userAlphabet[int(b[i])%len(userAlphabet)]
	}
	return string(b)
}

// answer: KEYS[1] the device hash; ARGV state ('approved' or 'denied'),
// player. Returns the device name, or false when the sign-in is not
// pending.
var answer = redis.NewScript(`
if redis.call('HGET', KEYS[1], 'state') ~= 'pending' then return false end
redis.call('HSET', KEYS[1], 'state', ARGV[1], 'player', ARGV[2])
return redis.call('HGET', KEYS[1], 'device') or ''
`)

// Approve answers the sign-in whose user code is userCode (normalised):
// approved for playerID, or refused when deny. It returns the device's
// name; ErrUnknownCode when no pending sign-in has the code.
func (s *Store) Approve(ctx context.Context, userCode, playerID string, deny bool) (string, error) {
	uk := s.userKey(userCode)
	dk, err := s.rdb.GetDel(ctx, uk).Result() // a code is answered once
	if errors.Is(err, redis.Nil) {
		return "", ErrUnknownCode
	}
	if err != nil {
		return "", fmt.Errorf("answer device sign-in: %w", err)
	}
	state := "approved"
	if deny {
		state = "denied"
	}
	device, err := answer.Run(ctx, s.rdb, []string{dk}, state, playerID).Text()
	if errors.Is(err, redis.Nil) {
		return "", ErrUnknownCode
	}
	if err != nil {
		return "", fmt.Errorf("answer device sign-in: %w", err)
	}
	return device, nil
}

// poll: KEYS[1] the device hash; ARGV now (ms). Returns {'expired'},
// {'slow', interval ms}, {'pending'}, {'denied'} or {'ok', player,
// device}; the last two spend the device code.
var poll = redis.NewScript(`
local h = redis.call('HMGET', KEYS[1], 'state', 'interval_ms', 'next_ms', 'player', 'device')
if not h[1] then return {'expired'} end
local now = tonumber(ARGV[1])
local interval = tonumber(h[2])
if now < tonumber(h[3]) then
  interval = interval + 5000
  redis.call('HSET', KEYS[1], 'interval_ms', interval, 'next_ms', now + interval)
  return {'slow', tostring(interval)}
end
redis.call('HSET', KEYS[1], 'next_ms', now + interval)
if h[1] == 'pending' then return {'pending'} end
redis.call('DEL', KEYS[1])
if h[1] == 'denied' then return {'denied'} end
return {'ok', h[4], h[5] or ''}
`)

// Poll is the device's poll at now: the approving player's id and the
// device's name once approved (the device code is then spent); else
// ErrPending, ErrDenied, ErrExpired or a *SlowDownError.
func (s *Store) Poll(ctx context.Context, deviceCode string, now time.Time) (playerID, device string, err error) {
	res, err := poll.Run(ctx, s.rdb, []string{s.deviceKey(deviceCode)}, now.UnixMilli()).StringSlice()
	if err != nil {
		return "", "", fmt.Errorf("poll device sign-in: %w", err)
	}
	switch res[0] {
	case "ok":
		return res[1], res[2], nil
	case "pending":
		return "", "", ErrPending
	case "denied":
		return "", "", ErrDenied
	case "slow":
		var ms int64
		_, _ = fmt.Sscan(res[1], &ms)
		return "", "", &SlowDownError{Interval: time.Duration(ms) * time.Millisecond}
	}
	return "", "", ErrExpired
}
