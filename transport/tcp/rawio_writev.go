//go:build darwin

package tcp

import "golang.org/x/sys/unix"

// writev writes iov in one system call.
func writev(fd int, iov [][]byte) (int, error) { return unix.Writev(fd, iov) }
