package grpcserve

import (
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"
)

// flakyListener fails its first Accepts with errs, then accepts from inner.
type flakyListener struct {
	net.Listener
	errs chan error
}

func (l *flakyListener) Accept() (net.Conn, error) {
	select {
	case err := <-l.errs:
		return nil, err
	default:
		return l.Listener.Accept()
	}
}

// TestSplitListenerOutOfFileDescriptors: a process out of file descriptors
// (one client holding thousands of connections) pauses accepting and goes on;
// it used to close the listener, and `serve` exited.
func TestSplitListenerOutOfFileDescriptors(t *testing.T) {
	for _, passing := range []error{
		&net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.EMFILE)},
		&net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", syscall.ENFILE)},
	} {
		t.Run(fmt.Sprint(passing), func(t *testing.T) {
			inner, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				t.Fatal(err)
			}
			fl := &flakyListener{Listener: inner, errs: make(chan error, 4)}
			for range 4 {
				fl.errs <- passing
			}
			s := newSplitListener(fl)
			served := make(chan error, 1)
			go func() { served <- s.serve() }()
			defer s.Close()

			c, err := net.Dial("tcp", inner.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if _, err := c.Write([]byte("GET / HTTP/1.1\r\n\r\n")); err != nil {
				t.Fatal(err)
			}
			accepted := make(chan net.Conn, 1)
			go func() {
				if ac, err := s.h1.Accept(); err == nil {
					accepted <- ac
				}
			}()
			select {
			case ac := <-accepted:
				ac.Close()
			case err := <-served:
				t.Fatalf("serve returned %v after %v; want it to go on accepting", err, passing)
			}
			if len(fl.errs) != 0 {
				t.Fatalf("%d errors not consumed", len(fl.errs))
			}
		})
	}
}

// TestSplitListenerFailsOnOtherErrors: an error that does not pass ends
// serve with that error.
func TestSplitListenerFailsOnOtherErrors(t *testing.T) {
	inner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("listener broken")
	fl := &flakyListener{Listener: inner, errs: make(chan error, 1)}
	fl.errs <- boom
	s := newSplitListener(fl)
	served := make(chan error, 1)
	go func() { served <- s.serve() }()
	select {
	case err := <-served:
		if !errors.Is(err, boom) {
			t.Fatalf("serve returned %v, want %v", err, boom)
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not return on a broken listener")
	}
}
