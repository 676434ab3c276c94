package redisstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/redis/go-redis/v9"

	"tabuleiro.dev/pkg/engine"
	"tabuleiro.dev/services/match/internal/match"
)

// Probes: one hash per match, m:{id}:lag, with a field p<seat> for the
// seat's pending probe ("probe:sentAt") and r<seat> for its estimate
// ("rtt:samples"). Writes give it the live expiry unless it has one
// (PEXPIRE NX: Redis 7; TTL reads are refused in scripts on the embedded
// store), and the commit that ends the match shortens it with the match's
// keys.

var lagSetScript = redis.NewScript(`
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[3], 'NX')
return 1
`)

func (s *Store) lagSet(ctx context.Context, id, field, value string) error {
	return lagSetScript.Run(ctx, s.rdb, []string{s.lagKey(id)}, field, value, s.o.LiveTTL.Milliseconds()).Err()
}

// SendProbe implements match.Probes.
func (s *Store) SendProbe(ctx context.Context, id string, seat engine.Seat, probe uint64, at int64) error {
	return s.lagSet(ctx, id, "p"+strconv.Itoa(int(seat)), strconv.FormatUint(probe, 10)+":"+strconv.FormatInt(at, 10))
}

// takeProbeScript: the pending probe ARGV[2] of field ARGV[1], removed,
// and the estimate field ARGV[3]; false when the pending probe is another.
var takeProbeScript = redis.NewScript(`
local p = redis.call('HGET', KEYS[1], ARGV[1])
if not p then return false end
local probe, at = string.match(p, '^(%d+):(%d+)$')
if probe ~= ARGV[2] then return false end
redis.call('HDEL', KEYS[1], ARGV[1])
return {at, redis.call('HGET', KEYS[1], ARGV[3]) or ''}
`)

// TakeProbe implements match.Probes.
func (s *Store) TakeProbe(ctx context.Context, id string, seat engine.Seat, probe uint64) (int64, match.Lag, bool, error) {
	n := strconv.Itoa(int(seat))
	res, err := takeProbeScript.Run(ctx, s.rdb, []string{s.lagKey(id)}, "p"+n, strconv.FormatUint(probe, 10), "r"+n).StringSlice()
	if errors.Is(err, redis.Nil) {
		return 0, match.Lag{}, false, nil
	}
	if err != nil || len(res) != 2 {
		return 0, match.Lag{}, false, fmt.Errorf("take probe of match %s: %w", id, err)
	}
	at, err := strconv.ParseInt(res[0], 10, 64)
	if err != nil {
		return 0, match.Lag{}, false, fmt.Errorf("take probe of match %s: %w", id, err)
	}
	return at, parseLag(res[1]), true, nil
}

// SetLag implements match.Probes.
func (s *Store) SetLag(ctx context.Context, id string, seat engine.Seat, est match.Lag) error {
	return s.lagSet(ctx, id, "r"+strconv.Itoa(int(seat)), strconv.FormatInt(est.RTTMS, 10)+":"+strconv.FormatInt(est.Samples, 10))
}

// Lags implements match.Probes.
func (s *Store) Lags(ctx context.Context, id string) ([2]match.Lag, error) {
	var out [2]match.Lag
	raw, err := s.rdb.HMGet(ctx, s.lagKey(id), "r1", "r2").Result()
	if err != nil {
		return out, fmt.Errorf("lags of match %s: %w", id, err)
	}
	for i, r := range raw {
		if v, ok := r.(string); ok && i < len(out) {
			out[i] = parseLag(v)
		}
	}
	return out, nil
}

// parseLag decodes "rtt:samples"; anything else is no estimate.
func parseLag(v string) match.Lag {
	a, b, ok := strings.Cut(v, ":")
	rtt, err1 := strconv.ParseInt(a, 10, 64)
	n, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || rtt < 0 || n < 0 {
		return match.Lag{}
	}
	return match.Lag{RTTMS: rtt, Samples: n}
}
