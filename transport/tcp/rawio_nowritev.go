//go:build unix && !linux && !darwin

package tcp

// writev writes iov a buffer at a time where golang.org/x/sys/unix has no
// Writev; it stops at the first short or failed write, as writev would
// report it.
func writev(fd int, iov [][]byte) (int, error) {
	total := 0
	for _, b := range iov {
		n, err := rawWrite(fd, b)
		total += max(n, 0)
		if err != nil || n < len(b) {
			if total > 0 {
				return total, nil
			}
			return total, err
		}
	}
	return total, nil
}
