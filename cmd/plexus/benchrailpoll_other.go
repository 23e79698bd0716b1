//go:build !linux

package main

import (
	"errors"
	"net"
)

// newSpinConn is Linux-only: the tcppoll impl's cases fail elsewhere,
// their rows saying so.
func newSpinConn(c net.Conn) (net.Conn, error) {
	c.Close()
	return nil, errors.New("tcppoll: only on Linux")
}
