package grpcserve

import (
	"bufio"
	"bytes"
	"errors"
	"net"
	"sync"
	"syscall"
	"time"
)

// http2Preface is what every HTTP/2 connection starts with (RFC 9113 3.4).
// A plaintext connection that starts with it is a gRPC client with prior
// knowledge; browsers never speak cleartext HTTP/2.
const http2Preface = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

// prefaceTimeout bounds the wait for a new connection's first bytes.
const prefaceTimeout = 10 * time.Second

// splitListener sorts a plaintext listener's connections by their first
// bytes: HTTP/2 with prior knowledge (gRPC clients) to h2, anything else
// (HTTP/1.x: gRPC-Web, Connect, static files) to h1. Native gRPC clients
// thus keep grpc-go's own HTTP/2 transport; only browser protocols pay for
// net/http and transcoding.
//
// Each half closes on its own (grpc.Server and http.Server close theirs as
// they stop); the inner listener closes with the second, or with Close.
type splitListener struct {
	inner    net.Listener
	h2, h1   *chanListener
	mu       sync.Mutex
	open     int // halves not closed yet
	closeOne sync.Once
	done     chan struct{}
}

func newSplitListener(inner net.Listener) *splitListener {
	s := &splitListener{inner: inner, done: make(chan struct{}), open: 2}
	s.h2 = &chanListener{addr: inner.Addr(), conns: make(chan net.Conn), done: make(chan struct{}), parent: s}
	s.h1 = &chanListener{addr: inner.Addr(), conns: make(chan net.Conn), done: make(chan struct{}), parent: s}
	return s
}

// serve accepts until the inner listener fails or is closed, and returns
// that error (nil after Close). An error that passes (a timeout, or the
// process or system out of file descriptors, as when one client opens
// thousands of connections) only pauses accepting, 5 ms doubling up to 1 s
// as net/http does: the connections already open keep being served.
func (s *splitListener) serve() error {
	var pause time.Duration
	for {
		c, err := s.inner.Accept()
		if err != nil {
			select {
			case <-s.done:
				return nil
			default:
			}
			if !acceptErrorPasses(err) {
				s.Close()
				return err
			}
			pause = min(max(2*pause, 5*time.Millisecond), time.Second)
			select {
			case <-s.done:
				return nil
			case <-time.After(pause):
			}
			continue
		}
		pause = 0
		go s.route(c)
	}
}

// acceptErrorPasses says whether Accept may succeed again after err.
func acceptErrorPasses(err error) bool {
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return true
	}
	return errors.Is(err, syscall.EMFILE) || errors.Is(err, syscall.ENFILE) ||
		errors.Is(err, syscall.ENOBUFS) || errors.Is(err, syscall.ENOMEM) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, syscall.EINTR)
}

func (s *splitListener) route(c net.Conn) {
	setUserTimeout(c)
	_ = c.SetReadDeadline(time.Now().Add(prefaceTimeout))
	br := bufio.NewReaderSize(c, len(http2Preface))
	head, err := br.Peek(len(http2Preface))
	_ = c.SetReadDeadline(time.Time{})
	if err != nil && len(head) == 0 {
		_ = c.Close()
		return
	}
	to := s.h1
	if bytes.Equal(head, []byte(http2Preface)) {
		to = s.h2
	}
	pc := &peekedConn{Conn: c, r: br}
	select {
	case to.conns <- pc:
	case <-to.done:
		_ = c.Close()
	}
}

// Close stops accepting; both halves' Accept then fail.
func (s *splitListener) Close() error {
	_ = s.h1.Close()
	_ = s.h2.Close()
	return s.closeInner()
}

func (s *splitListener) closeInner() error {
	var err error
	s.closeOne.Do(func() {
		close(s.done)
		err = s.inner.Close()
	})
	return err
}

// chanListener is one half of a splitListener.
type chanListener struct {
	addr    net.Addr
	conns   chan net.Conn
	done    chan struct{}
	closing sync.Once
	parent  *splitListener
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close closes this half; the shared listener closes with the second half.
func (l *chanListener) Close() error {
	last := false
	l.closing.Do(func() {
		close(l.done)
		l.parent.mu.Lock()
		l.parent.open--
		last = l.parent.open == 0
		l.parent.mu.Unlock()
	})
	if last {
		return l.parent.closeInner()
	}
	return nil
}

func (l *chanListener) Addr() net.Addr { return l.addr }

// peekedConn replays the bytes read to route the connection.
type peekedConn struct {
	net.Conn
	r *bufio.Reader
}

func (c *peekedConn) Read(p []byte) (int, error) {
	if c.r.Buffered() > 0 {
		return c.r.Read(p)
	}
	return c.Conn.Read(p)
}
