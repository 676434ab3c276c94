package scaletest

import (
	"io"
	"net"
	"sync"
	"testing"
	"time"
)

// Balancer is a TCP load balancer on loopback: each new connection goes to
// the next backend that accepts it, as a Kubernetes Service does. A
// connection to a backend that dies is closed, and the gRPC client's
// reconnection then lands on a live backend.
type Balancer struct {
	l        net.Listener
	mu       sync.Mutex
	backends []string
	next     int
	wg       sync.WaitGroup
	conns    map[net.Conn]struct{}
	waiters  []chan string // NextWrite's
}

// NextWrite returns a channel that receives the backend of the next
// client bytes written to a backend after the call (the next request's).
func (b *Balancer) NextWrite() <-chan string {
	ch := make(chan string, 1)
	b.mu.Lock()
	b.waiters = append(b.waiters, ch)
	b.mu.Unlock()
	return ch
}

// tracker tells NextWrite's waiters of its backend on every write.
type tracker struct {
	b       *Balancer
	backend string
	w       io.Writer
}

func (t tracker) Write(p []byte) (int, error) {
	t.b.mu.Lock()
	for _, ch := range t.b.waiters {
		ch <- t.backend
	}
	t.b.waiters = nil
	t.b.mu.Unlock()
	return t.w.Write(p)
}

// NewBalancer listens on a free loopback port until the test ends.
func NewBalancer(t testing.TB) *Balancer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	b := &Balancer{l: l, conns: map[net.Conn]struct{}{}}
	b.wg.Go(b.serve)
	t.Cleanup(b.Close)
	return b
}

// Addr is the balancer's address.
func (b *Balancer) Addr() string { return b.l.Addr().String() }

// Add adds a backend.
func (b *Balancer) Add(addr string) {
	b.mu.Lock()
	b.backends = append(b.backends, addr)
	b.mu.Unlock()
}

// Close stops accepting and cuts every connection.
func (b *Balancer) Close() {
	_ = b.l.Close()
	b.mu.Lock()
	for c := range b.conns {
		_ = c.Close()
	}
	b.mu.Unlock()
	b.wg.Wait()
}

func (b *Balancer) serve() {
	for {
		c, err := b.l.Accept()
		if err != nil {
			return
		}
		b.wg.Go(func() { b.pipe(c) })
	}
}

func (b *Balancer) pipe(c net.Conn) {
	b.mu.Lock()
	backends := append([]string{}, b.backends...)
	start := b.next
	b.next++
	b.mu.Unlock()
	var (
		up      net.Conn
		backend string
	)
	for i := range backends {
		backend = backends[(start+i)%len(backends)]
		u, err := net.DialTimeout("tcp", backend, time.Second)
		if err == nil {
			up = u
			break
		}
	}
	if up == nil {
		_ = c.Close()
		return
	}
	b.mu.Lock()
	b.conns[c], b.conns[up] = struct{}{}, struct{}{}
	b.mu.Unlock()
	var wg sync.WaitGroup
	cp := func(dst io.Writer, src net.Conn) {
		_, _ = io.Copy(dst, src)
		_ = c.Close()
		_ = up.Close()
	}
	wg.Go(func() { cp(tracker{b: b, backend: backend, w: up}, c) })
	wg.Go(func() { cp(c, up) })
	wg.Wait()
	b.mu.Lock()
	delete(b.conns, c)
	delete(b.conns, up)
	b.mu.Unlock()
}
