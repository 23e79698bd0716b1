//go:build linux

package affinity

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// maxCPU is one past the largest CPU number a unix.CPUSet can hold.
const maxCPU = len(unix.CPUSet{}) * 64

// initial is the mask the process had at package initialisation, before any
// caller narrowed a thread's mask; initErr is the error reading it.
var initial, initErr = processMask()

// processMask reads the calling thread's mask. Package initialisation runs
// on the main thread before user code can have pinned anything.
func processMask() (unix.CPUSet, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		return set, fmt.Errorf("affinity: sched_getaffinity: %w", err)
	}
	return set, nil
}

// Allowed lists, in increasing order, the CPUs the process may use: its
// affinity mask when the package was initialised. Any goroutine may call it.
func Allowed() ([]int, error) {
	if initErr != nil {
		return nil, initErr
	}
	return list(initial), nil
}

// list returns the CPUs in set in increasing order.
func list(set unix.CPUSet) []int {
	cpus := make([]int, 0, set.Count())
	for c := 0; c < maxCPU; c++ {
		if set.IsSet(c) {
			cpus = append(cpus, c)
		}
	}
	return cpus
}

// Pin locks the calling goroutine to its OS thread and restricts the thread
// to cpu. The returned unpin, which must be called on the same goroutine,
// restores the thread's previous mask and unlocks it; it is never nil, and
// calling it more than once is harmless. On error the thread is left
// unlocked and unchanged; an error for a CPU the process may not use wraps
// ErrNotAllowed.
func Pin(cpu int) (unpin func(), err error) { return PinSet([]int{cpu}) }

// PinSet is Pin for a set of CPUs: the thread may run on any of them. A
// process started by the pinned goroutine (os/exec forks on its thread)
// inherits the set. cpus must not be empty.
func PinSet(cpus []int) (unpin func(), err error) {
	if len(cpus) == 0 {
		return noop, fmt.Errorf("%w: an empty set of CPUs", ErrNotAllowed)
	}
	var want unix.CPUSet
	for _, cpu := range cpus {
		if err := check(cpu); err != nil {
			return noop, err
		}
		want.Set(cpu)
	}
	runtime.LockOSThread()
	var prev unix.CPUSet
	if err := unix.SchedGetaffinity(0, &prev); err != nil {
		runtime.UnlockOSThread()
		return noop, fmt.Errorf("affinity: sched_getaffinity: %w", err)
	}
	if err := unix.SchedSetaffinity(0, &want); err != nil {
		runtime.UnlockOSThread()
		return noop, setError(cpus[0], err)
	}
	return restorer(prev), nil
}

// check rejects CPUs outside the process's mask before touching the thread.
func check(cpu int) error {
	if cpu < 0 || cpu >= maxCPU {
		return fmt.Errorf("%w: CPU %d out of range [0, %d)", ErrNotAllowed, cpu, maxCPU)
	}
	if initErr == nil && !initial.IsSet(cpu) {
		return fmt.Errorf("%w: CPU %d not in the process's affinity mask", ErrNotAllowed, cpu)
	}
	return nil
}

// setError classifies a sched_setaffinity failure: EINVAL means the CPU is
// offline or outside the cpuset, which the caller cannot use either.
func setError(cpu int, err error) error {
	if err == unix.EINVAL {
		return fmt.Errorf("%w: CPU %d rejected by sched_setaffinity: %v", ErrNotAllowed, cpu, err)
	}
	return fmt.Errorf("affinity: sched_setaffinity CPU %d: %w", cpu, err)
}

// restorer returns the unpin for a thread whose mask was prev. If the mask
// cannot be restored the thread stays locked, so the runtime discards it
// when the goroutine exits instead of reusing a thread pinned to one CPU.
func restorer(prev unix.CPUSet) func() {
	done := false
	return func() {
		if done {
			return
		}
		done = true
		if unix.SchedSetaffinity(0, &prev) == nil {
			runtime.UnlockOSThread()
		}
	}
}
