package grpcserve

import (
	"context"
	"crypto/tls"
	"encoding/binary"
	"net"
	"sync"
	"time"
)

// The transport round trip of a connection, as the server measures it
// itself, never as a client reports it (lag compensation bounds its
// credit with it: a client that answers its probes late cannot claim more
// lag than its connection has).
//
// On a cleartext HTTP/2 connection (h2c: native gRPC clients, and the
// clients behind a TCP proxy), the server sends its own PING frames, at
// most one every pingRTTEvery and only along frames it writes anyway (a
// silent connection is not woken), and times their ACKs: the round trip to
// the client itself, whatever TCP proxies relay it. The estimate is the
// latest sample. Elsewhere (TLS, HTTP/1.1) it is the kernel's smoothed
// round trip of the TCP connection (TCP_INFO, Linux), which is the client's
// own when nothing stands between.

// pingRTTEvery is the shortest time between two of the server's PINGs on
// one connection.
const pingRTTEvery = time.Second

// rttPingData starts the 8 bytes of the server's own PINGs (the rest is a
// counter): net/http's HTTP/2 server ignores an ACK of a PING it did not
// send.
const rttPingData = "tbr"

type connKey struct{}

// withConn is net/http's ConnContext: a call's context knows its
// connection.
func withConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// TransportRTT returns the round trip of the connection that ctx's call
// came on, as the server measured it (see above), and whether it has one:
// not for a call that came through no server of this package, or on a
// connection that is not TCP, or before any measurement on a system
// without TCP_INFO.
func TransportRTT(ctx context.Context) (time.Duration, bool) {
	g := callGuard(ctx)
	if g == nil {
		return 0, false
	}
	if d, ok := g.rtt.get(); ok {
		return d, true
	}
	return tcpRTT(g.Conn)
}

// callGuard is the pingGuard of the connection ctx's call came on, or nil.
func callGuard(ctx context.Context) *pingGuard {
	c := callConn(ctx)
	if tc, ok := c.(*tls.Conn); ok {
		c = tc.NetConn()
	}
	if rc, ok := c.(*replayConn); ok {
		c = rc.NetConn()
	}
	g, _ := c.(*pingGuard)
	return g
}

// pingRTT is one connection's PING round trips.
type pingRTT struct {
	mu     sync.Mutex
	n      uint32    // PINGs sent
	sentAt time.Time // of the outstanding PING; zero when none
	data   [8]byte   // its payload
	next   time.Time // no PING before
	last   time.Duration
	ok     bool
}

func (p *pingRTT) get() (time.Duration, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.last, p.ok
}

// frame returns a PING frame to send now, or nil: one is outstanding
// (not answered within pingRTTEvery: a new one replaces it), or the last
// went out less than pingRTTEvery ago.
func (p *pingRTT) frame(now time.Time) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	if now.Before(p.next) {
		return nil
	}
	p.n++
	p.sentAt, p.next = now, now.Add(pingRTTEvery)
	copy(p.data[:], rttPingData)
	binary.BigEndian.PutUint32(p.data[4:], p.n)
	f := make([]byte, 9+8)
	f[2], f[3] = 8, 6 // length 8, type PING, no flags, stream 0
	copy(f[9:], p.data[:])
	return f
}

// ack takes a PING ACK's payload: the round trip if it answers the
// outstanding PING.
func (p *pingRTT) ack(data []byte, now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sentAt.IsZero() || string(data) != string(p.data[:]) {
		return
	}
	p.last, p.ok = now.Sub(p.sentAt), true
	p.sentAt = time.Time{}
}
