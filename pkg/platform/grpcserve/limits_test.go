package grpcserve_test

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/http2"

	"tabuleiro.dev/pkg/platform/grpcserve"
)

// dial starts a server with opts over TCP and returns an HTTP/2 framer on a
// raw connection to it, past the preface and settings.
func dial(t *testing.T, opts grpcserve.Options) *http2.Framer {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	addrs := make(chan string, 1)
	done := make(chan error, 1)
	opts.Addr = "127.0.0.1:0"
	opts.OnListen = func(a net.Addr) { addrs <- a.String() }
	go func() { done <- grpcserve.Run(ctx, opts, nil) }()
	t.Cleanup(func() { cancel(); <-done })
	var addr string
	select {
	case addr = <-addrs:
	case err := <-done:
		t.Fatalf("Run: %v", err)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	_ = c.SetDeadline(time.Now().Add(30 * time.Second)) // a hung server fails the test instead of hanging it
	if _, err := c.Write([]byte(http2.ClientPreface)); err != nil {
		t.Fatal(err)
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		t.Fatal(err)
	}
	return fr
}

// A client that pings more often than the enforcement policy allows is
// disconnected.
func TestKeepaliveEnforced(t *testing.T) {
	t.Parallel()
	fr := dial(t, grpcserve.Options{})
	for i := range 5 {
		if err := fr.WritePing(false, [8]byte{byte(i)}); err != nil {
			break // the server may already have closed the connection
		}
	}
	for {
		if _, err := fr.ReadFrame(); err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) {
				return // closed by the server
			}
			t.Fatalf("connection not closed by the server: %v", err)
		}
	}
}

// serverSettings connects to a server over TCP as an HTTP/2 client and
// returns the settings of the server's first SETTINGS frame.
func serverSettings(t *testing.T, opts grpcserve.Options) map[http2.SettingID]uint32 {
	t.Helper()
	fr := dial(t, opts)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			t.Fatal(err)
		}
		if sf, ok := f.(*http2.SettingsFrame); ok && !sf.IsAck() {
			out := map[http2.SettingID]uint32{}
			_ = sf.ForeachSetting(func(s http2.Setting) error { out[s.ID] = s.Val; return nil })
			return out
		}
	}
}

// Every server announces a cap on concurrent streams per connection: the
// default, or the one configured.
func TestMaxConcurrentStreams(t *testing.T) {
	t.Parallel()
	if got := serverSettings(t, grpcserve.Options{})[http2.SettingMaxConcurrentStreams]; got != grpcserve.DefaultMaxConcurrentStreams {
		t.Errorf("default MAX_CONCURRENT_STREAMS = %d, want %d", got, grpcserve.DefaultMaxConcurrentStreams)
	}
	if got := serverSettings(t, grpcserve.Options{MaxConcurrentStreams: 7})[http2.SettingMaxConcurrentStreams]; got != 7 {
		t.Errorf("configured MAX_CONCURRENT_STREAMS = %d, want 7", got)
	}
}
