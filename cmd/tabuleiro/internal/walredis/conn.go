package walredis

import (
	"errors"
	"net"
	"sync"
)

// maxQueued bounds what a connection may have waiting to be sent, as
// Redis's client-output-buffer-limit does: a client that stops reading
// (a stuck subscriber) is disconnected instead of growing the queue.
const maxQueued = 64 << 20

var errOutputLimit = errors.New("embedded redis: output buffer limit reached")

// gatedConn is a client connection whose output (replies, and messages
// published to it) leaves only once the log entries it may depend on are
// durable: everything miniredis writes is tagged with the LSN reserved at
// that moment (the running write's, or the last appended), queued, and
// sent by the connection's writer once the log is synced that far.
// Writes never block miniredis, which writes while holding its lock.
type gatedConn struct {
	net.Conn
	w *wal

	mu      sync.Mutex
	q       []chunk
	queued  int
	closing bool
	kick    chan struct{}
	done    chan struct{} // the writer has stopped
}

type chunk struct {
	lsn int64
	b   []byte
}

func newGatedConn(c net.Conn, w *wal) *gatedConn {
	g := &gatedConn{Conn: c, w: w, kick: make(chan struct{}, 1), done: make(chan struct{})}
	go g.writer()
	return g
}

func (g *gatedConn) signal() {
	select {
	case g.kick <- struct{}{}:
	default:
	}
}

// Write queues b behind the log.
func (g *gatedConn) Write(b []byte) (int, error) {
	lsn := g.w.reserved.Load()
	g.mu.Lock()
	if g.closing {
		g.mu.Unlock()
		return 0, net.ErrClosed
	}
	g.q = append(g.q, chunk{lsn: lsn, b: append([]byte(nil), b...)})
	g.queued += len(b)
	over := g.queued > maxQueued
	g.mu.Unlock()
	if over {
		_ = g.Conn.Close()
		return 0, errOutputLimit
	}
	g.signal()
	return len(b), nil
}

func (g *gatedConn) writer() {
	defer close(g.done)
	defer func() { _ = g.Conn.Close() }()
	var bufs net.Buffers
	for {
		g.mu.Lock()
		for len(g.q) == 0 {
			if g.closing {
				g.mu.Unlock()
				return
			}
			g.mu.Unlock()
			<-g.kick
			g.mu.Lock()
		}
		// Tags never decrease: waiting for the newest covers all.
		n := len(g.q)
		lsn := g.q[n-1].lsn
		g.mu.Unlock()
		if err := g.w.wait(lsn); err != nil {
			return // never send what the log does not hold
		}
		g.mu.Lock()
		bufs = bufs[:0]
		for _, c := range g.q[:n] {
			bufs = append(bufs, c.b)
			g.queued -= len(c.b)
		}
		g.q = append(g.q[:0], g.q[n:]...)
		g.mu.Unlock()
		if _, err := bufs.WriteTo(g.Conn); err != nil {
			g.mu.Lock()
			g.closing = true
			g.q = nil
			g.mu.Unlock()
			return
		}
	}
}

// Close stops reading at once; the writer sends what is queued (once
// durable) and then closes the socket.
func (g *gatedConn) Close() error {
	g.mu.Lock()
	g.closing = true
	g.mu.Unlock()
	g.signal()
	if tc, ok := g.Conn.(*net.TCPConn); ok {
		return tc.CloseRead()
	}
	return g.Conn.Close()
}
