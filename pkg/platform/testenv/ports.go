package testenv

import (
	"math/rand/v2"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The kernel hands listeners on port 0 and every outgoing connection's
// local end a port from its ephemeral range. A port a test took that way
// and closed can be a connection's a moment later, before the server it
// was meant for binds it (an edge's HAProxy once failed to start so while
// other test steps ran side by side). So these pick ports at random below
// that range, where only listeners that name their port go, and check
// that each can be bound.

// lowestPort is where the chosen ports start: above the registered
// services most machines run.
const lowestPort = 10000

// FreePort returns a loopback port below the ephemeral range that was free
// a moment ago.
func FreePort(t testing.TB) int {
	t.Helper()
	return FreePorts(t, 1, 0)[0]
}

// FreeAddr returns a loopback address (127.0.0.1:port) whose port is one
// FreePort returns.
func FreeAddr(t testing.TB) string {
	t.Helper()
	return "127.0.0.1:" + strconv.Itoa(FreePort(t))
}

// FreePorts returns n distinct loopback ports below the ephemeral range
// that were free a moment ago; with offset > 0 port+offset was free too,
// and below the range (a Redis Cluster node's bus port is its port +
// 10000).
func FreePorts(t testing.TB, n, offset int) []int {
	t.Helper()
	top := ephemeralLow() - offset
	if top-lowestPort < 100*n {
		t.Fatalf("no room for %d ports below the ephemeral range (it starts at %d)", n, ephemeralLow())
	}
	var ports []int
	var held []net.Listener
	defer func() {
		for _, l := range held {
			_ = l.Close()
		}
	}()
	for tries := 0; len(ports) < n; tries++ {
		if tries > 1000 {
			t.Fatalf("no %d free loopback ports in %d-%d", n, lowestPort, top-1)
		}
		p := lowestPort + rand.IntN(top-lowestPort)
		a, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p))
		if err != nil {
			continue
		}
		held = append(held, a)
		if offset > 0 {
			b, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(p+offset))
			if err != nil {
				continue
			}
			held = append(held, b)
		}
		ports = append(ports, p)
	}
	return ports
}

// ephemeralLow is the first port of the kernel's ephemeral range (Linux's
// default when it cannot be read).
func ephemeralLow() int {
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return 32768
	}
	lo, err := strconv.Atoi(f[0])
	if err != nil || lo <= lowestPort+1000 {
		return 32768
	}
	return lo
}
