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
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
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

// Addr returns the client address of an RPC's peer, as the key of
// per-address limits: the IP of an IPv4 peer, the /64 network of an IPv6
// one (a single host usually holds a whole /64), "" when unknown. Behind
// a proxy this is the proxy's address unless the proxy's own limits apply.
func Addr(ctx context.Context) string { return AddrBehind(ctx, nil) }

// AddrBehind is Addr for a server behind proxies: when the peer is one of
// the trusted proxies, the client is the right-most x-forwarded-for entry
// that is not a trusted proxy (entries left of it could be forged by the
// client).
func AddrBehind(ctx context.Context, trusted []netip.Prefix) string {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return ""
	}
	host := p.Addr.String()
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	ip, err := netip.ParseAddr(host)
	if err != nil {
		return host // a unix socket or bufconn: one client address
	}
	ip = ip.Unmap()
	if isTrusted(ip, trusted) {
		md, _ := metadata.FromIncomingContext(ctx)
		vals := md.Get("x-forwarded-for")
		var hops []string
		for _, v := range vals {
			hops = append(hops, strings.Split(v, ",")...)
		}
		for i := len(hops) - 1; i >= 0; i-- {
			hop, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
			if err != nil {
				break // a malformed entry: stop at the last trusted hop
			}
			ip = hop.Unmap()
			if !isTrusted(ip, trusted) {
				break
			}
		}
	}
	if ip.Is6() {
		pfx, _ := ip.Prefix(64)
		return pfx.String()
	}
	return ip.String()
}

func isTrusted(ip netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

// ParsePrefixes parses a comma-separated list of CIDR prefixes or single
// addresses ("10.0.0.0/8, 192.0.2.1").
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !strings.Contains(f, "/") {
			a, err := netip.ParseAddr(f)
			if err != nil {
				return nil, fmt.Errorf("trusted proxy %q: %w", f, err)
			}
			out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q: %w", f, err)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}
