package shm

import (
	"fmt"
	"sync/atomic"
	"time"
)

// Ranks that have not joined the segment. The monitor watches a rank by
// its line in the segment, and a rank's line says nothing until the rank
// claims it (pid 0: not joined yet), so a rank that dies before it joins
// would never be reported lost, and a peer waiting for its first frame
// would wait for ever. AwaitJoin watches such a rank by the process id it
// gave elsewhere (comm passes it in the launcher's address exchange)
// until its line shows it joined; from then on the monitor watches it.
//
// The process is looked at before the line: a process seen dead can no
// longer join, so a line still empty after that means it never did, and
// nothing it sent can be waiting in a ring.

// AwaitJoin makes sure that rank, which runs as process pid, is reported
// lost if its process ends before it joins the segment. It does not
// block: a rank that has not joined yet is looked at every Heartbeat, by
// a goroutine of its own, until it joins, its process is gone (the rank
// is then lost: Config.Lost, as for any loss) or the Endpoint closes. A
// rank whose process lives on is never lost by AwaitJoin, however late it
// joins. Any goroutine may call it, once per rank it waits on.
func (e *Endpoint) AwaitJoin(rank, pid int) {
	if rank < 0 || rank >= e.cfg.Size || rank == e.cfg.Rank || pid <= 0 {
		return
	}
	if e.joinSettled(rank, pid) {
		return
	}
	go e.awaitJoin(rank, pid)
}

// awaitJoin looks at rank every Heartbeat until joinSettled, shielded
// from faults in the segment as the Endpoint's other goroutines are
// (fault.go): a segment truncated meanwhile fails the Endpoint rather
// than the process.
func (e *Endpoint) awaitJoin(rank, pid int) {
	shield()
	t := time.NewTicker(e.cfg.Heartbeat)
	defer t.Stop()
	for !e.shielded(func() { e.awaitLoop(t, rank, pid) }) {
	}
}

// awaitLoop is awaitJoin's loop.
func (e *Endpoint) awaitLoop(t *time.Ticker, rank, pid int) {
	for {
		select {
		case <-e.stop:
			return
		case <-t.C:
			if e.joinSettled(rank, pid) {
				return
			}
		}
	}
}

// joinSettled looks at rank once: it reports true, after marking rank
// lost if its process pid ended before it joined, when there is nothing
// more to wait for. It holds pulling for reading, as Pull does, so that
// Close does not unmap the segment under it.
func (e *Endpoint) joinSettled(rank, pid int) bool {
	e.pulling.RLock()
	defer e.pulling.RUnlock()
	if e.closing.Load() || e.lostErr(rank) != nil {
		return true
	}
	if atomic.LoadUint64(e.seg.pid(rank)) != 0 {
		return true // joined: the monitor watches it
	}
	if processAlive(pid) {
		return false
	}
	if atomic.LoadUint64(e.seg.pid(rank)) != 0 {
		return true // joined, then died: the monitor reports it after its last frames
	}
	e.markLost(rank, fmt.Errorf("process %d exited before it joined the segment", pid))
	return true
}

// ExpectPIDs tells the Endpoint the process id of each rank of the
// segment (pids[r], 0 where unknown), so that a sender waiting for room
// in the ring of a rank that has not joined has that rank watched as
// AwaitJoin does: a ring fills when its reader never comes, and the
// reader's death must end the wait. It may be called once, by any
// goroutine; pids is not modified afterwards.
func (e *Endpoint) ExpectPIDs(pids []int) {
	if len(pids) == e.cfg.Size {
		e.pids.Store(&pids)
	}
}

// awaitStalled is AwaitJoin for peer, once, when its process id is known
// (ExpectPIDs). A sender waiting for room calls it, off the send path.
func (e *Endpoint) awaitStalled(peer int) {
	pids := e.pids.Load()
	if pids == nil || !e.peers[peer].awaited.CompareAndSwap(false, true) {
		return
	}
	e.AwaitJoin(peer, (*pids)[peer])
}
