// Package ratelimit limits what one client may do, across every instance
// of a service: request rates per key (a client address, a player) with
// go-redis/redis_rate's GCRA limiter over Redis, and caps on concurrent
// streams per key (Streams). A refusal is a gRPC RESOURCE_EXHAUSTED status
// with a readable reason and a google.rpc.RetryInfo detail saying when to
// retry.
package ratelimit

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/durationpb"

	"tabuleiro.dev/pkg/platform/reason"
)

// Rule is one rate: Burst requests at once, refilled at Rate per Period.
// A zero Rule allows everything.
type Rule struct {
	// What names what is limited, for the refusal's reason ("guest
	// sign-ins", "rooms created").
	What   string
	Rate   int
	Burst  int
	Period time.Duration
}

func (r Rule) limit() redis_rate.Limit {
	return redis_rate.Limit{Rate: r.Rate, Burst: max(r.Burst, 1), Period: r.Period}
}

// Off reports whether the rule limits nothing.
func (r Rule) Off() bool { return r.Rate <= 0 || r.Period <= 0 }

// Limiter applies Rules over Redis. A nil *Limiter allows everything.
type Limiter struct {
	l      *redis_rate.Limiter
	prefix string
}

// New returns a Limiter whose keys start with prefix.
func New(rdb redis.UniversalClient, prefix string) *Limiter {
	return &Limiter{l: redis_rate.NewLimiter(rdb), prefix: prefix + "rl:"}
}

// Allow takes one request of rule for key (a client address or a player
// id). Over the rate it returns RESOURCE_EXHAUSTED with the retry delay.
// An empty key (no address known) is not limited.
func (l *Limiter) Allow(ctx context.Context, rule Rule, name, key string) error {
	if l == nil || rule.Off() || key == "" {
		return nil
	}
	res, err := l.l.Allow(ctx, l.prefix+name+":"+key, rule.limit())
	if err != nil {
		return reason.Error(codes.Unavailable, reason.Unavailable, fmt.Sprintf("rate limiter unavailable: %v", err), nil)
	}
	if res.Allowed > 0 {
		return nil
	}
	return Exhausted(fmt.Sprintf("too many %s from this client (%s)", rule.What, rule.Describe()), res.RetryAfter)
}

// Describe states the rule as it is enforced: Burst requests at once,
// then one every Period/Rate ("at most 10 at once, then 30 per hour").
func (r Rule) Describe() string {
	b := max(r.Burst, 1)
	per := r.Period.String()
	switch r.Period {
	case time.Hour:
		per = "hour"
	case time.Minute:
		per = "minute"
	case time.Second:
		per = "second"
	}
	return fmt.Sprintf("at most %d at once, then %d per %s", b, r.Rate, per)
}

// Exhausted is the RESOURCE_EXHAUSTED status of a refusal: the reason why,
// the delay in it (rounded up to a second), a RATE_LIMITED ErrorInfo with
// that delay as retry_seconds, and a RetryInfo detail.
func Exhausted(why string, retry time.Duration) error {
	if retry < 0 {
		retry = 0
	}
	secs := (retry + time.Second - 1).Truncate(time.Second)
	st := reason.New(codes.ResourceExhausted, reason.RateLimited, fmt.Sprintf("%s; retry in %s", why, secs),
		map[string]string{"retry_seconds": strconv.Itoa(int(secs / time.Second))})
	if d, err := st.WithDetails(&errdetails.RetryInfo{RetryDelay: durationpb.New(retry)}); err == nil {
		st = d
	}
	return st.Err()
}

// RetryDelay returns the RetryInfo delay of a status error, and whether it
// has one.
func RetryDelay(err error) (time.Duration, bool) {
	for _, d := range status.Convert(err).Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok {
			return ri.GetRetryDelay().AsDuration(), true
		}
	}
	return 0, false
}
