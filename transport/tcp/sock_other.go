//go:build !linux

package tcp

import (
	"net"
	"syscall"
)

// maxDetached is 0 off Linux: every connection stays in the netpoller.
const maxDetached = 0

// detach is Linux's (sock_linux.go); elsewhere connections keep their
// net.Conn.
func detach(net.Conn, syscall.RawConn) (sock, bool) { return nil, false }
