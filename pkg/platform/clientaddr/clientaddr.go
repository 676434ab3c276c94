// Package clientaddr decides who a call comes from: the one function every
// service and `tabuleiro serve` use to key their per-address limits and to
// decide whether a caller is this host's own (loopback) client.
//
// The client is the peer, unless the peer is a trusted proxy: then the
// X-Forwarded-For entries are read right to left, each trusted hop
// skipped, and the first untrusted one is the client (entries left of it
// could have been written by the client itself). An entry may carry a
// port and brackets (203.0.113.201:5555, [2001:db8::1],
// [2001:db8::1]:443), as some proxies write them; an IPv6 client is keyed
// by its /64 (a single host usually holds a whole /64). An entry that does
// not parse at all is a client of its own, never the proxy and never
// loopback: every such entry shares the key Unparsed, so varying the text
// buys nothing.
package clientaddr

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"strings"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

// Unparsed is the key of every client whose X-Forwarded-For entry does not
// parse as an address.
const Unparsed = "unparsed-forwarded-for"

// ForwardedFor is the metadata key of the X-Forwarded-For header (gRPC
// metadata keys are lower case; the browser protocols' transcoder passes
// HTTP headers on as metadata).
const ForwardedFor = "x-forwarded-for"

// Client is the client of a call.
type Client struct {
	// Key keys per-address limits: an IPv4 address ("192.0.2.7"), an IPv6
	// /64 ("2001:db8::/64"), Unparsed, a peer address that is no IP (a
	// unix socket, an in-memory listener) as is, or "" when the call has
	// no peer.
	Key string
	// Loopback reports that the client is this host itself: the peer is a
	// loopback address and, behind a trusted proxy, the entries skipped
	// were all trusted loopback hops. Only such a client may be exempt
	// from limits.
	Loopback bool
}

// FromContext returns the client of the call in ctx, behind the trusted
// proxies (none: the peer is the client).
func FromContext(ctx context.Context, trusted []netip.Prefix) Client {
	p, ok := peer.FromContext(ctx)
	if !ok || p.Addr == nil {
		return Client{}
	}
	md, _ := metadata.FromIncomingContext(ctx)
	return Resolve(p.Addr.String(), md.Get(ForwardedFor), trusted)
}

// Resolve is FromContext's rule on its inputs: the peer's address
// ("ip:port", or an address of another kind) and the X-Forwarded-For
// header values, each a comma-separated list of hops, oldest first.
func Resolve(peerAddr string, forwardedFor []string, trusted []netip.Prefix) Client {
	ip, ok := parseHop(peerAddr)
	if !ok {
		return Client{Key: peerAddr} // a unix socket or an in-memory pipe: one client
	}
	if isTrusted(ip, trusted) {
		var hops []string
		for _, v := range forwardedFor {
			hops = append(hops, strings.Split(v, ",")...)
		}
		for i := len(hops) - 1; i >= 0; i-- {
			h := strings.TrimSpace(hops[i])
			if h == "" {
				continue // "a, , b" or a trailing comma: no hop
			}
			hop, ok := parseHop(h)
			if !ok {
				return Client{Key: Unparsed}
			}
			ip = hop
			if !isTrusted(ip, trusted) {
				break
			}
		}
	}
	return Client{Key: key(ip), Loopback: ip.IsLoopback()}
}

// parseHop reads one address as peers and proxies write it: a bare IPv4 or
// IPv6 address, either with a port ("192.0.2.1:5555", "[2001:db8::1]:443"),
// or an IPv6 address in brackets alone ("[2001:db8::1]"). A zone is
// dropped and an IPv4-mapped IPv6 address is taken as IPv4.
func parseHop(s string) (netip.Addr, bool) {
	s = strings.TrimSpace(s)
	if h, _, err := net.SplitHostPort(s); err == nil {
		s = h
	} else if len(s) > 2 && s[0] == '[' && s[len(s)-1] == ']' {
		s = s[1 : len(s)-1]
	}
	ip, err := netip.ParseAddr(s)
	if err != nil {
		return netip.Addr{}, false
	}
	return ip.WithZone("").Unmap(), true
}

func key(ip netip.Addr) string {
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

// ParsePrefixes parses a comma-separated list of trusted proxies, each an
// address (one host) or a CIDR prefix ("10.0.0.0/8, 192.0.2.1").
func ParsePrefixes(s string) ([]netip.Prefix, error) {
	return ParsePrefixList(strings.Split(s, ","))
}

// ParsePrefixList is ParsePrefixes on a list already split (repeated
// --trusted-proxy flags); empty entries are skipped.
func ParsePrefixList(vals []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, f := range vals {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if p, err := netip.ParsePrefix(f); err == nil {
			if p.Addr().Is4In6() {
				return nil, fmt.Errorf("trusted proxy %q: write an IPv4 prefix as IPv4", f)
			}
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(f)
		if err != nil {
			return nil, fmt.Errorf("trusted proxy %q is neither an address nor a CIDR (for example 127.0.0.1 or 10.0.0.0/8)", f)
		}
		a = a.WithZone("").Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
