//go:build unix

package multirail

import "syscall"

// rawIO says whether rails are read on their descriptors (drain); where
// not, a rail's reader uses blocking reads of its net.Conn.
const rawIO = true

// rawRead reads a socket's descriptor without blocking.
func rawRead(fd int, p []byte) (int, error) { return syscall.Read(fd, p) }
