package main

import (
	"net"
	"strings"
	"testing"
)

// watch (or any command) against an address where nothing listens says
// so in words, not with gRPC's transport error.
func TestWatchServerDown(t *testing.T) {
	t.Parallel()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	code, _, errOut := runWithEnv(t, localVars(t), "watch", "--server", addr, "m_x")
	if code != 1 || !strings.Contains(errOut, "cannot reach a Tabuleiro server at "+addr) ||
		strings.Contains(errOut, "transport") || strings.Contains(errOut, "desc =") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}
