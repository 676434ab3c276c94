package grpcserve

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func TestServerTLSNeedsBothFiles(t *testing.T) {
	t.Parallel()
	if c, err := ServerTLS("", ""); c != nil || err != nil {
		t.Errorf("ServerTLS(\"\", \"\") = %v, %v; want plaintext", c, err)
	}
	for _, files := range [][2]string{{"/c.pem", ""}, {"", "/k.pem"}, {"/missing.pem", "/missing.key"}} {
		if _, err := ServerTLS(files[0], files[1]); err == nil {
			t.Errorf("ServerTLS(%q, %q) accepted", files[0], files[1])
		}
	}
}

func TestClientCredentials(t *testing.T) {
	t.Parallel()
	c, err := ClientCredentials("")
	if err != nil || c.Info().SecurityProtocol != "insecure" {
		t.Errorf("ClientCredentials(\"\") = %v, %v; want insecure", c, err)
	}
	junk := filepath.Join(t.TempDir(), "ca.crt")
	if err := os.WriteFile(junk, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{junk, filepath.Join(t.TempDir(), "missing.crt")} {
		if _, err := ClientCredentials(f); err == nil {
			t.Errorf("ClientCredentials(%s) accepted", f)
		}
	}
}

func TestIsLoopback(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr net.Addr
		want bool
	}{
		{&net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}, true},
		{&net.TCPAddr{IP: net.IPv6loopback, Port: 8080}, true},
		{&net.TCPAddr{IP: net.IPv4zero, Port: 8080}, false},
		{&net.TCPAddr{Port: 8080}, false},
		{&net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 8080}, false},
		{&net.UnixAddr{Name: "/tmp/s", Net: "unix"}, true},
	} {
		if got := isLoopback(tc.addr); got != tc.want {
			t.Errorf("isLoopback(%v) = %v, want %v", tc.addr, got, tc.want)
		}
	}
}

// TestPlaintextWarning: serving plaintext on every interface logs a
// warning; on loopback it does not.
func TestPlaintextWarning(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		addr string
		warn bool
	}{{"127.0.0.1:0", false}, {"0.0.0.0:0", true}} {
		var mu sync.Mutex
		var buf bytes.Buffer
		logger := slog.New(slog.NewJSONHandler(lockedWriter{&mu, &buf}, nil))
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() {
			done <- Run(ctx, Options{Addr: tc.addr, Logger: logger, OnListen: func(net.Addr) {}}, nil)
		}()
		// Run logs "serving" (and the warning) before it waits on ctx;
		// cancelling at once is fine: the lines come before "draining".
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("%s: Run: %v", tc.addr, err)
		}
		mu.Lock()
		out := buf.String()
		mu.Unlock()
		if got := strings.Contains(out, "plaintext on a non-loopback address"); got != tc.warn {
			t.Errorf("%s: warning logged = %v, want %v\n%s", tc.addr, got, tc.warn, out)
		}
	}
}

type lockedWriter struct {
	mu *sync.Mutex
	w  *bytes.Buffer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
