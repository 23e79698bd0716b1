//go:build !unix

package multirail

import "errors"

// rawIO says whether rails are read on their descriptors (drain); where
// not, a rail's reader uses blocking reads of its net.Conn, since the
// sockets are not file descriptors there.
const rawIO = false

// errNoRawIO reports raw socket I/O on a system without it.
var errNoRawIO = errors.New("multirail: raw socket I/O is not supported on this system")

func rawRead(int, []byte) (int, error) { return 0, errNoRawIO }
