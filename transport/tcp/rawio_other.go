//go:build !unix

package tcp

import "errors"

// errNoRawIO reports raw socket I/O on a system where the transport does
// not do it (the sockets are not file descriptors there).
var errNoRawIO = errors.New("tcp: raw socket I/O is not supported on this system")

func rawRead(int, []byte) (int, error)  { return 0, errNoRawIO }
func rawWrite(int, []byte) (int, error) { return 0, errNoRawIO }
func writev(int, [][]byte) (int, error) { return 0, errNoRawIO }
func waitWritable(int)                  {}
