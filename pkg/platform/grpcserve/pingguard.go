package grpcserve

import (
	"encoding/binary"
	"net"
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

// pingGuard reads a cleartext HTTP/2 connection's frame headers as they
// pass; any other connection (HTTP/1.1, TLS) is passed through untouched
// once its first bytes are not the HTTP/2 preface.
type pingGuard struct {
	net.Conn
	off      int // bytes of the preface seen; -1: not HTTP/2, stop watching
	hdr      [9]byte
	hn       int    // header bytes gathered
	skip     uint32 // payload bytes left of the current frame
	strikes  int
	lastPing time.Time
	busy     bool // a HEADERS or DATA frame since the last ping
}

const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

func (c *pingGuard) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.off >= 0 && n > 0 && c.watch(p[:n]) {
		_ = c.Conn.Close()
	}
	return n, err
}

// watch follows the frames in b and reports whether the client broke the
// ping policy.
func (c *pingGuard) watch(b []byte) bool {
	for len(b) > 0 {
		switch {
		case c.off < len(http2Preface):
			if b[0] != http2Preface[c.off] {
				c.off = -1
				return false
			}
			c.off++
			b = b[1:]
		case c.skip > 0:
			k := min(uint32(len(b)), c.skip)
			c.skip -= k
			b = b[k:]
		default:
			k := copy(c.hdr[c.hn:], b)
			c.hn += k
			b = b[k:]
			if c.hn < len(c.hdr) {
				return false
			}
			c.hn = 0
			c.skip = uint32(c.hdr[0])<<16 | uint32(binary.BigEndian.Uint16(c.hdr[1:3]))
			switch typ, flags := c.hdr[3], c.hdr[4]; {
			case typ == 0 || typ == 1: // DATA, HEADERS
				c.busy = true
			case typ == 6 && flags&1 == 0: // PING, not an ACK
				now := time.Now()
				if !c.busy && !c.lastPing.IsZero() && now.Sub(c.lastPing) < pingMinTime {
					if c.strikes++; c.strikes > pingMaxStrikes {
						return true
					}
				}
				c.lastPing, c.busy = now, false
			}
		}
	}
	return false
}
