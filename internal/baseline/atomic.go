package baseline

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/plexus-hpc/plexus/internal/wait"
)

// Atomic is a sense-reversing centralised barrier on two cache lines:
// arrivals count on one, the last arrival flips the sense on the other,
// and waiters spin on the sense under the waiting policy coll's pinned
// members use (internal/wait), so that the benchmarks compare barriers
// rather than waiting policies. Nobody wakes a sleeping waiter: it naps.
//
// Invariants: count is the number of arrivals this round, reset by the
// last arrival before it flips sense; a waiter reads sense before
// arriving, and the sense cannot flip before it arrives.
type Atomic struct {
	n      int32
	policy *wait.Policy // long spins only if every waiter can have a CPU
	_      [cacheLine - 16]byte
	count  atomic.Int32
	_      [cacheLine - 4]byte
	sense  atomic.Uint32
	_      [cacheLine - 4]byte
}

const cacheLine = 64

// Check at compile time that each field has a line of its own.
var _ [0]struct{} = [unsafe.Sizeof(Atomic{}) - 3*cacheLine]struct{}{}

// NewAtomic returns a sense-reversing barrier for n goroutines, which
// spin long when each can have a CPU (n <= GOMAXPROCS) and yield early
// otherwise, as pinned team members do.
func NewAtomic(n int) *Atomic {
	p := &wait.Shared
	if n <= runtime.GOMAXPROCS(0) {
		p = &wait.Pinned
	}
	return &Atomic{n: int32(n), policy: p}
}

// Wait waits for the round's n arrivals.
func (b *Atomic) Wait() {
	s := b.sense.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.sense.Store(s ^ 1)
		return
	}
	w := wait.NewWaiter(b.policy)
	for b.sense.Load() == s {
		if w.Idle() == wait.Sleep {
			wait.Nap()
		}
	}
}
