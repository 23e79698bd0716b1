package shm

import "sync/atomic"

// wakeRank wakes rank p if it announced that it sleeps: whoever clears
// its word rings its doorbell (bell_linux.go). Any goroutine may call it,
// for any rank, this one included.
func (e *Endpoint) wakeRank(p int) {
	w := e.seg.wait(p)
	if atomic.LoadUint32(w) == 1 && atomic.CompareAndSwapUint32(w, 1, 0) {
		if p == e.cfg.Rank {
			ringBell(e.ownBell())
			return
		}
		if fd := e.bellOf(p); fd >= 0 {
			ringBell(fd)
		}
	}
}

// ownBell returns a descriptor that rings this rank's doorbell.
func (e *Endpoint) ownBell() int { return e.bellOf(e.cfg.Rank) }

// bellOf returns the descriptor that rings rank p's doorbell, opening it
// the first time; -1 when it cannot be opened (the rank has not made it
// yet, or it is not this user's): the sleeper then wakes at its
// heartbeat, as it would for a lost wake-up, and the next call tries
// again.
func (e *Endpoint) bellOf(p int) int {
	pr := &e.peers[p]
	if v := pr.bell.Load(); v > 0 {
		return int(v - 1)
	}
	pr.bellMu.Lock()
	defer pr.bellMu.Unlock()
	if v := pr.bell.Load(); v > 0 {
		return int(v - 1)
	}
	if e.closing.Load() && p != e.cfg.Rank {
		return -1
	}
	fd := openBell(bellPath(e.seg.path, p))
	if fd >= 0 {
		pr.bell.Store(int32(fd + 1))
	}
	return fd
}

// closeBells closes the descriptors of the doorbells this rank rang, and
// its own doorbell, which it removes. Close calls it once nothing rings
// any more.
func (e *Endpoint) closeBells() {
	for p := range e.peers {
		pr := &e.peers[p]
		pr.bellMu.Lock()
		if v := pr.bell.Swap(0); v > 0 {
			closeBell(int(v - 1))
		}
		pr.bellMu.Unlock()
	}
	if e.bell != nil {
		e.bell.close()
	}
}
