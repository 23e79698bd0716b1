//go:build linux

package affinity

import (
	"fmt"
	"os"
	"strconv"

	"golang.org/x/sys/unix"
)

// BindProcess restricts every thread of the process to cpus, and so the
// threads it starts later, which inherit the mask of the thread that
// makes them. It is meant for a process that nobody bound when it
// started (a launcher binds a child by starting it on a bound thread,
// PinSet); threads pinned with Pin or PinSet lose their narrower mask.
// Allowed keeps reporting the mask the process started with. cpus must
// not be empty and must all be allowed. Any goroutine may call it.
func BindProcess(cpus []int) error {
	if len(cpus) == 0 {
		return fmt.Errorf("%w: an empty set of CPUs", ErrNotAllowed)
	}
	var set unix.CPUSet
	for _, cpu := range cpus {
		if err := check(cpu); err != nil {
			return err
		}
		set.Set(cpu)
	}
	// A thread made during a pass may have copied its maker's old mask:
	// passes go on until one finds no thread it has not bound already.
	done := map[int]bool{}
	for pass := 0; pass < 8; pass++ {
		tids, err := threads()
		if err != nil {
			return err
		}
		fresh := 0
		for _, tid := range tids {
			if done[tid] {
				continue
			}
			fresh++
			if err := unix.SchedSetaffinity(tid, &set); err != nil && err != unix.ESRCH {
				return setError(cpus[0], err)
			}
			done[tid] = true
		}
		if fresh == 0 {
			return nil
		}
	}
	return fmt.Errorf("affinity: BindProcess: the process kept starting threads")
}

// threads lists the process's thread ids.
func threads() ([]int, error) {
	ents, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return nil, fmt.Errorf("affinity: listing threads: %w", err)
	}
	tids := make([]int, 0, len(ents))
	for _, e := range ents {
		if tid, err := strconv.Atoi(e.Name()); err == nil {
			tids = append(tids, tid)
		}
	}
	return tids, nil
}

// ProcessCPUs lists, in increasing order, the CPUs the process's main
// thread may run on now: after BindProcess or a launcher's binding, the
// process's CPUs (a thread narrowed with Pin keeps its own mask). Any
// goroutine may call it.
func ProcessCPUs() ([]int, error) {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(os.Getpid(), &set); err != nil {
		return nil, fmt.Errorf("affinity: sched_getaffinity: %w", err)
	}
	return list(set), nil
}
