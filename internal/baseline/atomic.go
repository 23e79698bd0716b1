package baseline

import (
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"
)

// Atomic is a sense-reversing centralised barrier on two cache lines:
// arrivals count on one, the last arrival flips the sense on the other,
// and waiters spin on the sense under coll's waiting policy (spinWait).
//
// Invariants: count is the number of arrivals this round, reset by the
// last arrival before it flips sense; a waiter reads sense before
// arriving, and the sense cannot flip before it arrives.
type Atomic struct {
	n     int32
	spins int32 // spin budget: long only if every waiter can have a CPU
	_     [cacheLine - 8]byte
	count atomic.Int32
	_     [cacheLine - 4]byte
	sense atomic.Uint32
	_     [cacheLine - 4]byte
}

const cacheLine = 64

// Check at compile time that each field has a line of its own.
var _ [0]struct{} = [unsafe.Sizeof(Atomic{}) - 3*cacheLine]struct{}{}

// NewAtomic returns a sense-reversing barrier for n goroutines, which
// spin long when each can have a CPU (n <= GOMAXPROCS) and yield early
// otherwise, as pinned team members do.
func NewAtomic(n int) *Atomic {
	spins := sharedSpins
	if n <= runtime.GOMAXPROCS(0) {
		spins = pinnedSpins
	}
	return &Atomic{n: int32(n), spins: int32(spins)}
}

// Wait waits for the round's n arrivals.
func (b *Atomic) Wait() {
	s := b.sense.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.sense.Store(s ^ 1)
		return
	}
	w := spinWait{spins: int(b.spins)}
	for b.sense.Load() == s {
		w.idle()
	}
}

// coll's waiting policy (coll/spin.go), without its bells and progress:
// poll flat out, then with growing pauses until the spin budget is spent,
// then yield, then nap. Keep the two in step.
const (
	flatPolls   = 64
	maxPause    = 64
	pinnedSpins = 1 << 14
	sharedSpins = 1 << 8
	yieldPolls  = 1 << 8
	nap         = 50 * time.Microsecond
)

// spinWait counts one wait's polls. It is owned by one goroutine.
type spinWait struct{ n, spins int }

// idle is called after a poll that found nothing.
func (w *spinWait) idle() {
	w.n++
	switch {
	case w.n < flatPolls:
	case w.n < w.spins:
		pause(min(w.n-flatPolls+1, maxPause))
	case w.n < w.spins+yieldPolls:
		runtime.Gosched()
	default:
		time.Sleep(nap)
	}
}

// sink keeps pause's loop from being optimised away.
var sink atomic.Uint32

// pause busy-waits for about n loop iterations without touching shared
// cache lines.
func pause(n int) {
	x := uint32(0)
	for i := 0; i < n; i++ {
		x += uint32(i)
	}
	if x == 1 {
		sink.Store(x)
	}
}
