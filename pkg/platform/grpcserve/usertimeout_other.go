//go:build !linux

package grpcserve

import "net"

// setUserTimeout is Linux only (TCP_USER_TIMEOUT).
func setUserTimeout(net.Conn) {}
