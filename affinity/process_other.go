//go:build !linux

package affinity

import "fmt"

// BindProcess binds nothing on this platform and returns an error
// wrapping ErrUnsupported.
func BindProcess(cpus []int) error {
	return fmt.Errorf("%w: binding the process to %v", ErrUnsupported, cpus)
}

// ProcessCPUs reports ErrUnsupported on this platform.
func ProcessCPUs() ([]int, error) { return nil, ErrUnsupported }
