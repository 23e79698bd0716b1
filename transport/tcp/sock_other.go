//go:build !linux

package tcp

import (
	"net"
	"syscall"
	"time"
)

// maxDetached is 0 off Linux: every connection stays in the netpoller.
const maxDetached = 0

// detach is Linux's (sock_linux.go); elsewhere connections keep their
// net.Conn.
func detach(net.Conn, syscall.RawConn) (sock, bool) { return nil, false }

// setUserTimeout does nothing off Linux, which has no TCP_USER_TIMEOUT
// (Config.UserTimeout).
func setUserTimeout(syscall.RawConn, time.Duration) {}
