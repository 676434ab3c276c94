package grpcserve

import (
	"net"
	"time"

	"golang.org/x/sys/unix"
)

// userTimeout is how long sent data may stay unacknowledged before the
// kernel drops a connection (TCP_USER_TIMEOUT). grpc-go sets the same on
// its own connections from its keepalive settings (Time + Timeout); here it
// covers the connections served by net/http too, so that a vanished
// browser's Follow or Watch stream ends (and its seat's reconnection window
// starts) within about as long as a native client's.
const userTimeout = 40 * time.Second

// setUserTimeout sets TCP_USER_TIMEOUT on a TCP connection; other
// connections (bufconn in tests) are left alone.
func setUserTimeout(c net.Conn) {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return
	}
	_ = tc.SetKeepAliveConfig(net.KeepAliveConfig{Enable: true, Idle: 30 * time.Second, Interval: 10 * time.Second, Count: 1})
	raw, err := tc.SyscallConn()
	if err != nil {
		return
	}
	_ = raw.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_USER_TIMEOUT, int(userTimeout.Milliseconds()))
	})
}
