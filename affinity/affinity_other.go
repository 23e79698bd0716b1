//go:build !linux

package affinity

import "fmt"

// Allowed reports ErrUnsupported: this platform has no portable way to
// read the process's CPU mask here.
func Allowed() ([]int, error) {
	return nil, ErrUnsupported
}

// Pin pins nothing on this platform and returns an error wrapping
// ErrUnsupported (ErrNotAllowed for a negative CPU) with a no-op unpin,
// so callers may always defer it. Any goroutine may call it.
func Pin(cpu int) (unpin func(), err error) {
	if cpu < 0 {
		return noop, fmt.Errorf("%w: CPU %d is negative", ErrNotAllowed, cpu)
	}
	return noop, fmt.Errorf("%w: CPU %d", ErrUnsupported, cpu)
}

// PinSet is Pin for a set of CPUs; it pins nothing on this platform.
func PinSet(cpus []int) (unpin func(), err error) {
	for _, cpu := range cpus {
		if cpu < 0 {
			return noop, fmt.Errorf("%w: CPU %d is negative", ErrNotAllowed, cpu)
		}
	}
	return noop, fmt.Errorf("%w: CPUs %v", ErrUnsupported, cpus)
}
