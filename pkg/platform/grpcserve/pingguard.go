package grpcserve

import (
	"encoding/binary"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// The ping policy grpc-go's own transport enforces (NewServer's
// KeepaliveEnforcementPolicy), applied to the connections net/http serves:
// a client that sends PING frames more often than pingMinTime, with no
// HEADERS or DATA frame in between, more than pingMaxStrikes times, is
// disconnected. net/http's HTTP/2 server answers every ping, so a client
// pinging in a loop would keep it busy for nothing.
const (
	pingMinTime    = 10 * time.Second
	pingMaxStrikes = 2
)

// guardListener sets TCP_USER_TIMEOUT on each accepted connection and
// watches the client's HTTP/2 frames for a ping flood.
type guardListener struct {
	net.Listener
}

func (l guardListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	setUserTimeout(c)
	return &pingGuard{Conn: c}, nil
}

// pingGuard follows a cleartext HTTP/2 connection's frame headers as they
// pass, both ways (grpc-go forgives a ping that follows the server's HEADERS
// or DATA, as a client's BDP estimation does); any other connection
// (HTTP/1.1, TLS) is passed through untouched once its first bytes are not
// the HTTP/2 preface.
type pingGuard struct {
	net.Conn
	off      int         // bytes of the preface seen; -1: not HTTP/2, stop watching (Read's own)
	h2       atomic.Bool // the preface was seen: Write follows the frames too
	in, out  frameWalker
	mu       sync.Mutex // strikes, lastPing, busy
	strikes  int
	lastPing time.Time
	busy     bool // a HEADERS or DATA frame either way since the last ping
	rtt      pingRTT
}

const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

func (c *pingGuard) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.off >= 0 && n > 0 && c.watch(p[:n]) {
		_ = c.Conn.Close()
	}
	return n, err
}

func (c *pingGuard) Write(p []byte) (int, error) {
	if !c.h2.Load() {
		return c.Conn.Write(p)
	}
	c.out.walk(p, func(typ, _ byte) {
		if typ == 0 || typ == 1 {
			c.mu.Lock()
			c.busy = true
			c.mu.Unlock()
		}
	}, nil)
	// Between two frames (net/http writes one goroutine at a time), the
	// server's own PING may follow (see rtt.go).
	var ping []byte
	if c.out.between() {
		ping = c.rtt.frame(time.Now())
	}
	if ping == nil {
		return c.Conn.Write(p)
	}
	n, err := c.Conn.Write(append(p[:len(p):len(p)], ping...))
	return min(n, len(p)), err
}

// watch follows the client's bytes in b and reports whether the client
// broke the ping policy.
func (c *pingGuard) watch(b []byte) bool {
	for c.off >= 0 && c.off < len(http2Preface) && len(b) > 0 {
		if b[0] != http2Preface[c.off] {
			c.off = -1
			return false
		}
		c.off++
		b = b[1:]
		if c.off == len(http2Preface) {
			c.h2.Store(true)
		}
	}
	if c.off < len(http2Preface) {
		return false
	}
	broke := false
	c.in.walk(b, func(typ, flags byte) {
		c.mu.Lock()
		defer c.mu.Unlock()
		switch {
		case typ == 0 || typ == 1: // DATA, HEADERS
			c.busy = true
		case typ == 6 && flags&1 == 0: // PING, not an ACK
			now := time.Now()
			if !c.busy && !c.lastPing.IsZero() && now.Sub(c.lastPing) < pingMinTime {
				if c.strikes++; c.strikes > pingMaxStrikes {
					broke = true
				}
			}
			c.lastPing, c.busy = now, false
		}
	}, func(data []byte) { c.rtt.ack(data, time.Now()) })
	return broke
}

// frameWalker finds the frame headers in one direction of an HTTP/2
// connection (after the preface), however the bytes are split.
type frameWalker struct {
	hdr  [9]byte
	hn   int    // header bytes gathered
	skip uint32 // payload bytes left of the current frame
	// ack: the current frame is a PING ACK whose payload is gathered in
	// ping (pn bytes so far).
	ack  bool
	ping [8]byte
	pn   int
}

// walk follows b: frame is told of each frame's header, pingAck (if not
// nil) of each PING ACK's payload.
func (w *frameWalker) walk(b []byte, frame func(typ, flags byte), pingAck func(data []byte)) {
	for len(b) > 0 {
		if w.skip > 0 {
			k := min(uint32(len(b)), w.skip)
			if w.ack {
				w.pn += copy(w.ping[w.pn:], b[:k])
				if w.pn == len(w.ping) {
					w.ack = false
					pingAck(w.ping[:])
				}
			}
			w.skip -= k
			b = b[k:]
			continue
		}
		k := copy(w.hdr[w.hn:], b)
		w.hn += k
		b = b[k:]
		if w.hn < len(w.hdr) {
			return
		}
		w.hn = 0
		w.skip = uint32(w.hdr[0])<<16 | uint32(binary.BigEndian.Uint16(w.hdr[1:3]))
		w.ack, w.pn = pingAck != nil && w.hdr[3] == 6 && w.hdr[4]&1 != 0 && w.skip == 8, 0
		frame(w.hdr[3], w.hdr[4])
	}
}

// between reports whether the bytes walked so far end with a whole frame.
func (w *frameWalker) between() bool { return w.hn == 0 && w.skip == 0 }
