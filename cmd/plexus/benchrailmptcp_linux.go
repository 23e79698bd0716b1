package main

import (
	"net"

	"golang.org/x/sys/unix"
)

// mptcpSubflows returns the number of subflows of an MPTCP connection,
// the first included, from the kernel's MPTCP_INFO (linux/mptcp.h: its
// first byte, mptcpi_subflows, counts those beyond the first).
func mptcpSubflows(c *net.TCPConn) (int, bool) {
	const solMPTCP, mptcpInfo = 284, 1
	raw, err := c.SyscallConn()
	if err != nil {
		return 0, false
	}
	var n int
	var gerr error
	raw.Control(func(fd uintptr) {
		var s string
		s, gerr = unix.GetsockoptString(int(fd), solMPTCP, mptcpInfo)
		if gerr == nil {
			n = 1 // the string ends at the first zero byte
			if len(s) > 0 {
				n += int(s[0])
			}
		}
	})
	return n, gerr == nil && n > 0
}
