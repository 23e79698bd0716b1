package multirail

import (
	"fmt"
	"time"
)

// Deadlines. A chunk unacknowledged for Config.AckTimeout beyond twice
// its predicted time takes its rail down (a link that is down may not
// say so for minutes). The watch looks every tickLen; a deadline is
// counted in its ticks rather than read off a clock, so that posting a
// small message reads no clock (time.Now reads two, a few per cent of a
// small message's Send; docs/benchmarks.md, "Rails: the Link's CPU per
// small message"). A chunk queued at tick k is late from tick
// dueTick(k, d) on, which is at least d after it was queued (the tick
// under way began before it) and at most two ticks more; a tick the
// ticker drops only makes it later.

// tickLen is the watch's period for ackTimeout: a quarter of it, at
// least 10 ms.
func tickLen(ackTimeout time.Duration) time.Duration {
	return max(ackTimeout/4, 10*time.Millisecond)
}

// dueTick is the first tick at which a chunk queued during tick k (after
// k ticks) has gone unacknowledged for at least d, ticks every per.
func dueTick(k uint64, d, per time.Duration) uint64 {
	return k + 1 + uint64((max(d, 0)+per-1)/per)
}

// watch fails the rails whose chunks go unacknowledged past their
// deadline, ticking every per.
func (l *Link) watch(per time.Duration) {
	defer l.wg.Done()
	t := time.NewTicker(per)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-t.C:
		}
		for _, i := range l.tickLate() {
			l.railFailed(i, fmt.Errorf("multirail: rail %d: a chunk went unacknowledged past its deadline", i))
		}
	}
}

// tickLate counts a tick and returns the rails up with a chunk late.
func (l *Link) tickLate() []int {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.tick++
	var late []int
	for _, rc := range l.rails {
		for _, p := range rc.pend.all() {
			if l.tick >= p.due && !rc.down {
				late = append(late, rc.i)
				break
			}
		}
	}
	return late
}
