//go:build !linux

package main

import "net"

// mptcpSubflows is unknown off Linux.
func mptcpSubflows(*net.TCPConn) (int, bool) { return 0, false }
