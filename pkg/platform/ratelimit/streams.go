package ratelimit

import (
	"context"
	"crypto/rand"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// Streams caps the concurrent streams of one key (a player) across every
// instance: each open stream is a member of a sorted set per key, scored
// by when its lease lapses; the instance holding the stream renews the
// lease every TTL/3, so the streams of an instance that died stop counting
// after TTL. A nil *Streams allows everything.
type Streams struct {
	rdb    redis.UniversalClient
	prefix string
	Max    int           // streams per key
	TTL    time.Duration // default 30 s
	What   string        // "streams", for the refusal's reason
	Now    func() time.Time
}

// NewStreams returns a cap of max concurrent streams per key (0: no cap).
func NewStreams(rdb redis.UniversalClient, prefix, what string, maxStreams int) *Streams {
	return &Streams{rdb: rdb, prefix: prefix + "streams:" + what + ":", Max: maxStreams, TTL: 30 * time.Second, What: what, Now: time.Now}
}

// acquireScript: KEYS set. ARGV now ms, until ms, max, member, ttl ms.
var acquireScript = redis.NewScript(`
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  local first = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
  return -(tonumber(first[2]) - tonumber(ARGV[1]))
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[4])
redis.call('PEXPIRE', KEYS[1], ARGV[5])
return 1
`)

// renewScript moves a member's lease on if it is still there.
var renewScript = redis.NewScript(`
if redis.call('ZSCORE', KEYS[1], ARGV[2]) then
  redis.call('ZADD', KEYS[1], ARGV[1], ARGV[2])
  redis.call('PEXPIRE', KEYS[1], ARGV[3])
end
return 1
`)

// Acquire opens one stream for key, or refuses with RESOURCE_EXHAUSTED
// when key holds Max already. release ends it (call it once, when the
// stream ends); until then the stream's lease is renewed in the
// background while ctx lives.
func (s *Streams) Acquire(ctx context.Context, key string) (release func(), err error) {
	if s == nil || s.Max <= 0 || key == "" {
		return func() {}, nil
	}
	ttl := s.TTL
	if ttl <= 0 {
		ttl = 30 * time.Second
	}
	k, member := s.prefix+key, rand.Text()
	now := s.Now().UnixMilli()
	res, err := acquireScript.Run(ctx, s.rdb, []string{k}, now, now+ttl.Milliseconds(), s.Max, member, 2*ttl.Milliseconds()).Int64()
	if err != nil {
		return nil, status.Errorf(codes.Unavailable, "count open %s: %v", s.What, err)
	}
	if res <= 0 {
		return nil, Exhausted(fmt.Sprintf("too many open %s (at most %d at once); close one", s.What, s.Max), time.Duration(-res)*time.Millisecond)
	}
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(ttl / 3)
		defer t.Stop()
		for {
			select {
			case <-rctx.Done():
				return
			case <-ctx.Done():
				return
			case <-t.C:
				until := s.Now().UnixMilli() + ttl.Milliseconds()
				_ = renewScript.Run(rctx, s.rdb, []string{k}, until, member, 2*ttl.Milliseconds()).Err()
			}
		}
	}()
	return func() {
		cancel()
		<-done
		_ = s.rdb.ZRem(context.WithoutCancel(ctx), k, member).Err()
	}, nil
}

// Open returns how many streams key holds now (tests, metrics).
func (s *Streams) Open(ctx context.Context, key string) (int, error) {
	n, err := s.rdb.ZCount(ctx, s.prefix+key, fmt.Sprint(s.Now().UnixMilli()+1), "+inf").Result()
	return int(n), err
}
