package coll

import (
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
)

// Baseline barriers for n goroutines, to measure Barrier against (and for
// the CLI benchmarks). Each is reusable: Wait returns once n goroutines
// have called it in the current round, and the next n calls form the
// next round. Any goroutine may call Wait; exactly n take part per round.

// AtomicBarrier is a sense-reversing centralised barrier on two cache
// lines: arrivals count on one, the last arrival flips the sense on the
// other, and waiters spin on the sense under the package's wait policy.
//
// Invariants: count is the number of arrivals this round, reset by the
// last arrival before it flips sense; a waiter reads sense before
// arriving, and the sense cannot flip before it arrives.
type AtomicBarrier struct {
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
var _ [0]struct{} = [unsafe.Sizeof(AtomicBarrier{}) - 3*cacheLine]struct{}{}

// spinBudget returns the spin budget for one of n waiters: long when
// they own their CPUs, short when some must share one and a spinning
// waiter would only delay the peer it waits for.
func spinBudget(n int, pinned bool) int {
	if pinned && n <= runtime.GOMAXPROCS(0) {
		return pinnedSpins
	}
	return sharedSpins
}

// NewAtomicBarrier returns a sense-reversing barrier for n goroutines.
func NewAtomicBarrier(n int) *AtomicBarrier {
	return &AtomicBarrier{n: int32(n), spins: int32(spinBudget(n, true))}
}

// Wait waits for the round's n arrivals.
func (b *AtomicBarrier) Wait() {
	s := b.sense.Load()
	if b.count.Add(1) == b.n {
		b.count.Store(0)
		b.sense.Store(s ^ 1)
		return
	}
	w := spinner{spins: int(b.spins)}
	for b.sense.Load() == s {
		w.idle()
	}
}

// CondBarrier is a barrier on a mutex and a sync.Cond: waiters block in
// the scheduler.
type CondBarrier struct {
	mu    sync.Mutex
	cond  sync.Cond
	n     int
	count int
	round uint64 // guarded by mu
}

// NewCondBarrier returns a sync.Cond barrier for n goroutines.
func NewCondBarrier(n int) *CondBarrier {
	b := &CondBarrier{n: n}
	b.cond.L = &b.mu
	return b
}

// Wait waits for the round's n arrivals.
func (b *CondBarrier) Wait() {
	b.mu.Lock()
	defer b.mu.Unlock()
	r := b.round
	if b.count++; b.count == b.n {
		b.count, b.round = 0, r+1
		b.cond.Broadcast()
		return
	}
	for b.round == r {
		b.cond.Wait()
	}
}

// ChanBarrier is a barrier made of channels only: a one-slot channel
// holds the round's state, and the last arrival closes the round's
// release channel.
type ChanBarrier struct {
	n     int
	state chan chanRound
}

type chanRound struct {
	count   int
	release chan struct{}
}

// NewChanBarrier returns a channel barrier for n goroutines.
func NewChanBarrier(n int) *ChanBarrier {
	b := &ChanBarrier{n: n, state: make(chan chanRound, 1)}
	b.state <- chanRound{release: make(chan struct{})}
	return b
}

// Wait waits for the round's n arrivals.
func (b *ChanBarrier) Wait() {
	r := <-b.state
	if r.count++; r.count == b.n {
		close(r.release)
		b.state <- chanRound{release: make(chan struct{})}
		return
	}
	b.state <- r
	<-r.release
}

// WaitGroupRound is a barrier of one sync.WaitGroup per round, the
// fork-join idiom: every arrival calls Done and then Wait on the round's
// group. A fresh group starts each round, because a WaitGroup must not be
// reused while goroutines may still be in its Wait.
type WaitGroupRound struct {
	mu      sync.Mutex
	n       int
	arrived int             // guarded by mu
	cur     *sync.WaitGroup // guarded by mu
}

// NewWaitGroupRound returns a WaitGroup barrier for n goroutines.
func NewWaitGroupRound(n int) *WaitGroupRound {
	b := &WaitGroupRound{n: n}
	b.cur = b.fresh()
	return b
}

func (b *WaitGroupRound) fresh() *sync.WaitGroup {
	wg := new(sync.WaitGroup)
	wg.Add(b.n)
	return wg
}

// Wait waits for the round's n arrivals.
func (b *WaitGroupRound) Wait() {
	b.mu.Lock()
	wg := b.cur
	if b.arrived++; b.arrived == b.n {
		b.arrived, b.cur = 0, b.fresh()
	}
	b.mu.Unlock()
	wg.Done()
	wg.Wait()
}
