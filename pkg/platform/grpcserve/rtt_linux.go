package grpcserve

import (
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// tcpRTT is the kernel's smoothed round trip of a TCP connection
// (TCP_INFO tcpi_rtt).
func tcpRTT(c net.Conn) (time.Duration, bool) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return 0, false
	}
	raw, err := tc.SyscallConn()
	if err != nil {
		return 0, false
	}
	var info *unix.TCPInfo
	if err := raw.Control(func(fd uintptr) {
		info, err = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO)
	}); err != nil || info == nil {
		return 0, false
	}
	return time.Duration(info.Rtt) * time.Microsecond, true
}
