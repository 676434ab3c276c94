package grpcserve

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
)

// A cleartext connection whose first request is native gRPC is served by
// grpc-go's own HTTP/2 transport (grpc.Server.Serve); every other
// connection (HTTP/1.1, an h2c connection whose first request is gRPC-Web,
// Connect or a file, TLS) by net/http, which sends each request by its
// content type (see WebHandler). grpc-go's transport costs a stream one
// goroutine and a few hundred bytes beside it; net/http's HTTP/2 server
// with grpc.Server.ServeHTTP costs three goroutines and about 16 KB of
// buffers and state (docs/architecture.md: an idle Watch stream).
//
// grpc-go's transport answers only gRPC: a connection it serves must not
// carry a gRPC-Web or Connect call later. Native gRPC clients never mix;
// a proxy that pools its connections to the backends across its clients
// does, unless it keeps native gRPC on connections of its own (the edge's
// HAProxy does: a backend for native gRPC, one for the rest). A proxy
// that mixes (a Gateway sending everything on one pool) needs
// Options.MixedConnections.

// sniffTimeout bounds the wait for a cleartext connection's first
// request; a connection that sends none by then goes to net/http, whose
// own timeouts apply.
const sniffTimeout = 10 * time.Second

// maxSniffBytes bounds what is read before the first request's headers
// are whole; a connection that sends more first goes to net/http.
const maxSniffBytes = 256 << 10

// splitListener hands each connection accepted from l to the native gRPC
// listener or to net/http's.
type splitListener struct {
	l       net.Listener
	native  *chanListener
	web     *chanListener
	pending sync.WaitGroup
	closing atomic.Bool
	// settings is the SETTINGS frame sent before the first request
	// (sniffGRPC), with the servers' MAX_CONCURRENT_STREAMS.
	settings []byte
}

func newSplitListener(l net.Listener, maxStreams uint32) *splitListener {
	var b bytes.Buffer
	_ = http2.NewFramer(&b, nil).WriteSettings(http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: maxStreams})
	return &splitListener{l: l, native: newChanListener(l.Addr()), web: newChanListener(l.Addr()), settings: b.Bytes()}
}

// run accepts until l is closed. When l fails (not closed by Close), it
// closes both listeners too, and their servers stop; after Close, the
// servers' own shutdown closes them.
func (s *splitListener) run() {
	defer func() {
		if !s.closing.Load() {
			_ = s.native.Close()
			_ = s.web.Close()
		}
	}()
	var backoff time.Duration
	for {
		c, err := s.l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) || s.closing.Load() {
				return
			}
			// Out of file descriptors, a connection reset before it was
			// accepted: wait and go on, as net/http does.
			backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		s.pending.Add(1)
		go func() {
			defer s.pending.Done()
			native, replay := sniffGRPC(c, s.settings)
			conn := net.Conn(&replayConn{Conn: c, buf: replay})
			to := s.web
			if native {
				to = s.native
			}
			if !to.deliver(conn) {
				_ = c.Close()
			}
		}()
	}
}

// Close stops accepting; the connections already handed over stay open.
func (s *splitListener) Close() error {
	s.closing.Store(true)
	return s.l.Close()
}

// sniffGRPC reads c up to its first request's headers, and reports
// whether it is an HTTP/2 connection whose first request is native gRPC
// (POST, content type application/grpc or application/grpc+codec),
// with the bytes it read, to be read again by whoever serves c.
//
// A gRPC client may wait for the server's SETTINGS before its first
// request (grpc-go does): after the client's preface, a SETTINGS frame is
// sent (settings: the cap on concurrent streams both servers announce), and the client's ACK of it is read and left out of the
// bytes returned (the server that gets the connection sends its own
// SETTINGS, and net/http closes a connection that acknowledges more than
// it sent).
func sniffGRPC(c net.Conn, settings []byte) (bool, []byte) {
	_ = c.SetReadDeadline(time.Now().Add(sniffTimeout))
	defer func() { _ = c.SetReadDeadline(time.Time{}) }()
	var rec bytes.Buffer
	b := make([]byte, len(http2Preface))
	for rec.Len() < len(http2Preface) {
		n, err := c.Read(b[:len(http2Preface)-rec.Len()])
		rec.Write(b[:n])
		if !strings.HasPrefix(http2Preface, rec.String()) || err != nil {
			return false, rec.Bytes()
		}
	}
	if _, err := c.Write(settings); err != nil {
		return false, rec.Bytes()
	}
	fr := http2.NewFramer(nil, io.TeeReader(&limitReader{r: c, n: maxSniffBytes}, &rec))
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	fr.MaxHeaderListSize = 64 << 10
	var native, headers, acked bool
	for !headers || !acked {
		before := rec.Len()
		f, err := fr.ReadFrame()
		if err != nil {
			return native, rec.Bytes()
		}
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if f.IsAck() && !acked {
				acked = true
				rec.Truncate(before)
			}
		case *http2.MetaHeadersFrame:
			if !headers {
				headers = true
				native = f.PseudoValue("method") == "POST" && isNativeGRPC(f.RegularFields())
			}
		}
	}
	return native, rec.Bytes()
}

// isNativeGRPC reports whether a request's header fields name native
// gRPC's content type (not gRPC-Web's).
func isNativeGRPC(fields []hpack.HeaderField) bool {
	for _, f := range fields {
		if f.Name != "content-type" {
			continue
		}
		ct := strings.ToLower(f.Value)
		return ct == "application/grpc" || strings.HasPrefix(ct, "application/grpc+") || strings.HasPrefix(ct, "application/grpc;")
	}
	return false
}

type limitReader struct {
	r io.Reader
	n int
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.n <= 0 {
		return 0, io.EOF
	}
	if len(p) > l.n {
		p = p[:l.n]
	}
	n, err := l.r.Read(p)
	l.n -= n
	return n, err
}

// replayConn reads buf first, then its connection.
type replayConn struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

func (c *replayConn) Read(p []byte) (int, error) {
	c.mu.Lock()
	if len(c.buf) > 0 {
		n := copy(p, c.buf)
		c.buf = c.buf[n:]
		if len(c.buf) == 0 {
			c.buf = nil
		}
		c.mu.Unlock()
		return n, nil
	}
	c.mu.Unlock()
	return c.Conn.Read(p)
}

// NetConn is the connection under the replayed bytes (TransportRTT's).
func (c *replayConn) NetConn() net.Conn { return c.Conn }

// chanListener is a listener whose connections come from a splitListener.
type chanListener struct {
	addr   net.Addr
	conns  chan net.Conn
	closed chan struct{}
	once   sync.Once
}

func newChanListener(addr net.Addr) *chanListener {
	return &chanListener{addr: addr, conns: make(chan net.Conn), closed: make(chan struct{})}
}

func (l *chanListener) deliver(c net.Conn) bool {
	select {
	case l.conns <- c:
		return true
	case <-l.closed:
		return false
	}
}

func (l *chanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *chanListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *chanListener) Addr() net.Addr { return l.addr }

// connCreds are the native gRPC connections' transport credentials: none
// (cleartext, as insecure.NewCredentials), but each call's peer keeps its
// connection, for TransportRTT.
type connCreds struct{}

// connInfo is a native gRPC call's peer.AuthInfo.
type connInfo struct {
	credentials.CommonAuthInfo
	conn net.Conn
}

func (connInfo) AuthType() string { return "insecure" }

func (connCreds) ClientHandshake(_ context.Context, _ string, c net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return c, connInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}, conn: c}, nil
}

func (connCreds) ServerHandshake(c net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return c, connInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}, conn: c}, nil
}

func (connCreds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "insecure"}
}

func (connCreds) Clone() credentials.TransportCredentials { return connCreds{} }

//nolint:staticcheck // part of the interface
func (connCreds) OverrideServerName(string) error { return nil }

// callConn is the connection a call came on: net/http's (withConn), or
// grpc-go's own transport's (connCreds).
func callConn(ctx context.Context) net.Conn {
	if c, ok := ctx.Value(connKey{}).(net.Conn); ok {
		return c
	}
	if p, ok := peer.FromContext(ctx); ok {
		if ci, ok := p.AuthInfo.(connInfo); ok {
			return ci.conn
		}
	}
	return nil
}
