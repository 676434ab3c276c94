package testenv

import (
	"net"
	"strconv"
	"testing"
)

func TestFreePortsAreBelowTheEphemeralRangeAndBindable(t *testing.T) {
	lo := ephemeralLow()
	ports := FreePorts(t, 6, 10000)
	seen := map[int]bool{}
	for _, p := range ports {
		if p < lowestPort || p+10000 >= lo {
			t.Errorf("port %d (bus %d) is outside %d-%d", p, p+10000, lowestPort, lo-1)
		}
		if seen[p] {
			t.Errorf("port %d twice", p)
		}
		seen[p] = true
		for _, q := range []int{p, p + 10000} {
			l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(q))
			if err != nil {
				t.Errorf("port %d cannot be bound: %v", q, err)
				continue
			}
			_ = l.Close()
		}
	}
	if p := FreePort(t); p < lowestPort || p >= lo {
		t.Errorf("FreePort gave %d, outside %d-%d", p, lowestPort, lo-1)
	}
}
