package shm

import (
	"fmt"
	"sync/atomic"
	"time"
)

// watch decides from what a rank's line shows whether the rank is lost.
// It is a pure state machine: the monitor feeds it observations and the
// time, so tests can drive it without processes or clocks.
type watch struct {
	beat  uint64
	since time.Time // when beat last changed; zero before the first look
}

// observation is one look at a rank's line.
type observation struct {
	pid, state, beat uint64
	alive            bool // processAlive(pid)
}

// observe returns why the rank is lost, or nil.
func (w *watch) observe(o observation, now time.Time, timeout time.Duration) error {
	switch {
	case o.pid == 0:
		return nil // not joined yet
	case o.state == stateClosed:
		return fmt.Errorf("closed its endpoint")
	case !o.alive:
		return fmt.Errorf("process %d exited", o.pid)
	case o.beat != w.beat || w.since.IsZero():
		w.beat, w.since = o.beat, now
		return nil
	case now.Sub(w.since) > timeout:
		return fmt.Errorf("process %d: no heartbeat for %v", o.pid, now.Sub(w.since).Round(time.Millisecond))
	}
	return nil
}

// monitor beats this rank's heartbeat and watches the peers' until Close,
// shielded from faults in the segment (fault.go).
func (e *Endpoint) monitor() {
	defer e.wg.Done()
	shield()
	t := time.NewTicker(e.cfg.Heartbeat)
	defer t.Stop()
	for !e.shielded(func() { e.monitorLoop(t) }) {
	}
}

// monitorLoop is monitor's loop.
func (e *Endpoint) monitorLoop(t *time.Ticker) {
	for {
		select {
		case <-e.stop:
			return
		case now := <-t.C:
			e.tick(now)
		}
	}
}

func (e *Endpoint) tick(now time.Time) {
	e.checkSize()
	atomic.AddUint64(e.seg.beat(e.cfg.Rank), 1)
	e.probePeers()
	for p := range e.peers {
		if p == e.cfg.Rank || e.peers[p].lost.Load() != nil {
			continue
		}
		if err := e.peers[p].watch.observe(e.look(p), now, e.cfg.PeerTimeout); err != nil {
			e.markLost(p, err)
		}
	}
}

// look reads rank p's line.
func (e *Endpoint) look(p int) observation {
	o := observation{
		pid:   atomic.LoadUint64(e.seg.pid(p)),
		state: atomic.LoadUint64(e.seg.state(p)),
		beat:  atomic.LoadUint64(e.seg.beat(p)),
	}
	o.alive = o.pid == 0 || processAlive(int(o.pid))
	return o
}
