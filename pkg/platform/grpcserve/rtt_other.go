//go:build !linux

package grpcserve

import (
	"net"
	"time"
)

// tcpRTT: no TCP_INFO here.
func tcpRTT(net.Conn) (time.Duration, bool) { return 0, false }
