package shm

import "sync/atomic"

// wakeRank wakes rank p if it announced that it sleeps: whoever clears
// its word rings its doorbell (bell_linux.go). Any goroutine may call it,
// for any rank, this one included.
func (e *Endpoint) wakeRank(p int) {
	w := e.seg.wait(p)
	if atomic.LoadUint32(w) == 1 && atomic.CompareAndSwapUint32(w, 1, 0) {
		if fd, keep := e.bellOf(p); fd >= 0 {
			ringBell(fd)
			if !keep {
				closeBell(fd)
			}
		}
	}
}

// maxBells bounds the doorbells a rank keeps open to ring: a host may run
// up to MaxRanks ranks, and a descriptor per peer in each would be a
// million descriptors on the host. Past the bound a ring opens the bell,
// writes and closes it: three system calls instead of one, on the path
// that wakes a sleeping rank, which is slow anyway (docs/design/shm.md,
// "Where the time goes"). A variable for tests.
var maxBells int32 = 64

// bellOf returns a descriptor that rings rank p's doorbell, opening it
// the first time, and whether it stays open (keep) or the caller closes
// it after ringing; -1 when it cannot be opened (the rank has not made it
// yet, or it is not this user's): the sleeper then wakes at its
// heartbeat, as it would for a lost wake-up, and the next call tries
// again.
func (e *Endpoint) bellOf(p int) (fd int, keep bool) {
	pr := &e.peers[p]
	if v := pr.bell.Load(); v > 0 {
		return int(v - 1), true
	}
	pr.bellMu.Lock()
	defer pr.bellMu.Unlock()
	if v := pr.bell.Load(); v > 0 {
		return int(v - 1), true
	}
	fd = openBell(bellPath(e.seg.path, p))
	if fd < 0 {
		return -1, false
	}
	// A closing Endpoint rings but keeps nothing open: closeBells may
	// have run already.
	if e.closing.Load() {
		return fd, false
	}
	if p != e.cfg.Rank && e.bellsOpen.Add(1) > maxBells {
		e.bellsOpen.Add(-1)
		return fd, false
	}
	pr.bell.Store(int32(fd + 1))
	return fd, true
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
