//go:build !linux

package multirail

import (
	"errors"
	"net"
)

// Elsewhere than Linux a rail stays the net.Conn it was given: its reader
// goroutine reads it with blocking reads, and Config.Poll has nothing to
// poll.

// errNoSock reports a raw socket call where rails have no descriptors.
var errNoSock = errors.New("multirail: raw socket I/O is only done on Linux")

// sock stands for the Linux rail socket; newSock never makes one here.
type sock struct{}

func newSock(net.Conn) *sock { return nil }

func (*sock) read([]byte) (int, error) { return 0, errNoSock }
func (*sock) write([]byte) error       { return errNoSock }
func (*sock) writev([][]byte) error    { return errNoSock }
func (*sock) waitReadable() error      { return errNoSock }
func (*sock) shutdown()                {}
func (*sock) close()                   {}
