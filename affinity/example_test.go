package affinity_test

import (
	"errors"
	"fmt"

	"github.com/plexus-hpc/plexus/affinity"
)

// Pin a worker goroutine to the first CPU the process may use, falling back
// to running unpinned where pinning is unsupported.
func Example() {
	done := make(chan bool)
	go func() {
		cpus, err := affinity.Allowed()
		if err != nil {
			done <- errors.Is(err, affinity.ErrUnsupported)
			return
		}
		unpin, err := affinity.Pin(cpus[0])
		defer unpin()
		done <- err == nil
	}()
	fmt.Println("worker ready:", <-done)
	// Output: worker ready: true
}
