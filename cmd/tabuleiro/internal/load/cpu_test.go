package load

import (
	"bytes"
	"net"
	"os"
	"strings"
	"testing"
)

// TestMeterFindsLocalListeners: a process listening on a given address
// (this test's) is found and its processor time reported per ply.
func TestMeterFindsLocalListeners(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	m, err := NewMeter(t.Context(), [][2]string{{"lobby", l.Addr().String()}, {"match", l.Addr().String()}, {"bot", "127.0.0.1:1"}}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if pids := m.kinds["lobby+match"]; len(pids) != 1 || pids[0] != os.Getpid() {
		t.Fatalf("kinds %v, want this process (%d) as lobby+match", m.kinds, os.Getpid())
	}
	var out bytes.Buffer
	m.Write(t.Context(), &out, 10)
	if !strings.Contains(out.String(), "CPU per ply: lobby+match ") {
		t.Errorf("report %q", out.String())
	}
}
