package baseline

import "sync"

// Cond is a barrier on a mutex and a sync.Cond: waiters block in
// the scheduler.
type Cond struct {
	mu    sync.Mutex
	cond  sync.Cond
	n     int
	count int
	round uint64 // guarded by mu
}

// NewCond returns a sync.Cond barrier for n goroutines.
func NewCond(n int) *Cond {
	b := &Cond{n: n}
	b.cond.L = &b.mu
	return b
}

// Wait waits for the round's n arrivals.
func (b *Cond) Wait() {
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

// Chan is a barrier made of channels only: a one-slot channel
// holds the round's state, and the last arrival closes the round's
// release channel.
type Chan struct {
	n     int
	state chan chanRound
}

type chanRound struct {
	count   int
	release chan struct{}
}

// NewChan returns a channel barrier for n goroutines.
func NewChan(n int) *Chan {
	b := &Chan{n: n, state: make(chan chanRound, 1)}
	b.state <- chanRound{release: make(chan struct{})}
	return b
}

// Wait waits for the round's n arrivals.
func (b *Chan) Wait() {
	r := <-b.state
	if r.count++; r.count == b.n {
		close(r.release)
		b.state <- chanRound{release: make(chan struct{})}
		return
	}
	b.state <- r
	<-r.release
}

// WaitGroup is a barrier of one sync.WaitGroup per round, the
// fork-join idiom: every arrival calls Done and then Wait on the round's
// group. A fresh group starts each round, because a WaitGroup must not be
// reused while goroutines may still be in its Wait.
type WaitGroup struct {
	mu      sync.Mutex
	n       int
	arrived int             // guarded by mu
	cur     *sync.WaitGroup // guarded by mu
}

// NewWaitGroup returns a sync.WaitGroup barrier for n goroutines.
func NewWaitGroup(n int) *WaitGroup {
	b := &WaitGroup{n: n}
	b.cur = b.fresh()
	return b
}

func (b *WaitGroup) fresh() *sync.WaitGroup {
	wg := new(sync.WaitGroup)
	wg.Add(b.n)
	return wg
}

// Wait waits for the round's n arrivals.
func (b *WaitGroup) Wait() {
	b.mu.Lock()
	wg := b.cur
	if b.arrived++; b.arrived == b.n {
		b.arrived, b.cur = 0, b.fresh()
	}
	b.mu.Unlock()
	wg.Done()
	wg.Wait()
}
