package wait_test

import (
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/internal/wait"
)

func Example() {
	var flag atomic.Bool
	go flag.Store(true)
	w := wait.NewWaiter(&wait.Owned)
	for !flag.Load() {
		if w.Idle() == wait.Sleep {
			wait.Nap() // nobody wakes this waiter: nap and poll again
		}
	}
	fmt.Println("set")
	// Output: set
}

func ExampleSpinner() {
	var flag atomic.Bool
	go flag.Store(true)
	s := wait.Spinner{Endless: true} // nobody could wake this poller
	o := s.Spin(func(int) bool { return flag.Load() }, nil, nil)
	fmt.Println(o)
	// Output: found
}
