// Package affinity pins the calling goroutine's OS thread to one CPU, the
// way Smelt pins each participant thread to its core (Smelt §4.1).
//
// Pin locks the goroutine to its thread (runtime.LockOSThread) and restricts
// that thread to a single CPU; the returned unpin restores the thread's
// previous mask and unlocks it. Pin and unpin must run on the same
// goroutine, and the goroutine should do its communication in between:
//
//	go func() {
//		unpin, err := affinity.Pin(1)
//		if err != nil { ... } // errors.Is(err, affinity.ErrNotAllowed)
//		defer unpin()
//		... spin on a ring ...
//	}()
//
// PinSet does the same for a set of CPUs; plexus run uses it to start a
// rank bound to its share of the cores, since a child process inherits the
// mask of the thread that forks it.
//
// Allowed lists the CPUs Pin accepts: the affinity mask the process had when
// the package was initialised (sched_getaffinity), which honours taskset and
// cgroup cpusets.
//
// Pin worker goroutines, not a test's or program's main goroutine: the main
// goroutine may be bound to the main thread, and on small machines pinning
// it has been measured to make spinning hand-offs between workers 3–6×
// slower.
//
// # Oversubscription
//
// Nothing stops several goroutines from pinning to one CPU, or more members
// from pinning than GOMAXPROCS or the machine has CPUs. It works, but the
// pinned threads then time-share that CPU under the kernel scheduler, and
// each locked thread occupies one of the GOMAXPROCS slots only while it
// runs Go code. A waiter that spins on such a CPU burns the time slice its
// peer needs to make progress, so spinning waiters must give the CPU up
// after a bounded number of spins (runtime.Gosched, then short sleeps); the
// ring package's waiting policy does exactly that.
//
// # Portability
//
// Pinning is implemented on Linux only. Elsewhere the package builds, Pin
// pins nothing and returns an error wrapping ErrUnsupported, and Allowed
// returns ErrUnsupported; callers are expected to fall back to unpinned
// goroutines.
package affinity
