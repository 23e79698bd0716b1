package shm

import (
	"fmt"
	"runtime/debug"
	"unsafe"
)

// Faults in the segment. The segment is a file, and any process of the
// user may truncate it; a rank that then touches a page past the file's
// new end gets SIGBUS, which kills a Go program unless the goroutine
// asked for a panic instead (debug.SetPanicOnFault). So the goroutines
// the Endpoint owns — the receive goroutine, the monitor and the flush
// timers — ask at their start, run their loops shielded (a deferred
// recover, once per loop, not per frame), and the monitor also compares
// the file's size with the segment's every Heartbeat. A fault in the
// segment's range, or a file found shorter, fails the Endpoint: the
// mapping is replaced in place by private zeroed memory (retire), so no
// goroutine of the process faults on it any more, and every peer is lost
// with an error that wraps ErrBadSegment; later operations fail with
// ErrPeerLost. Other panics go on unchanged.
//
// The callers' goroutines (Send, Queue, Poll, Sleep, Signal, Pull, and
// comm's loads of signal words) are not shielded: a deferred recover and
// the flag cost on every frame. One that touches the segment between the
// truncation and the Endpoint's failure (at most a Heartbeat, less when
// the receive goroutine is awake) still dies of SIGBUS.

// shielded runs f, on a goroutine that called debug.SetPanicOnFault(true),
// and reports whether f returned; if f faulted on the segment it fails the
// Endpoint and reports false, so the caller may run its loop again.
func (e *Endpoint) shielded(f func()) (returned bool) {
	defer func() {
		if !returned {
			e.recovered(recover())
		}
	}()
	f()
	return true
}

// recovered handles what shielded recovered: a fault in the segment fails
// the Endpoint; anything else panics again. r is nil on runtime.Goexit.
func (e *Endpoint) recovered(r any) {
	if r == nil {
		return
	}
	f, ok := r.(interface{ Addr() uintptr })
	if !ok || !e.seg.holds(f.Addr()) {
		panic(r)
	}
	e.fail(fmt.Errorf("%w: fault at offset %d of %s: the file was truncated", ErrBadSegment, f.Addr()-e.seg.base(), e.seg.path))
}

// shield makes faults of the calling goroutine panics, which shielded
// recovers; each goroutine that runs shielded calls it first.
func shield() { debug.SetPanicOnFault(true) }

// checkSize fails the Endpoint if the segment's file has shrunk, before
// any goroutine touches a page it lost. The monitor calls it.
func (e *Endpoint) checkSize() {
	if e.failed.Load() || e.seg.file == nil {
		return
	}
	fi, err := e.seg.file.Stat()
	if err == nil && fi.Size() < int64(e.seg.segBytes) {
		e.fail(fmt.Errorf("%w: %s shrank to %d bytes of %d: the file was truncated", ErrBadSegment, e.seg.path, fi.Size(), e.seg.segBytes))
	}
}

// fail gives the segment up: it replaces the mapping by harmless memory
// and loses every peer with cause. Any goroutine may call it; only the
// first call acts, and the others wait for it (a goroutine that faulted
// must not go on before the mapping is replaced).
func (e *Endpoint) fail(cause error) {
	e.failOnce.Do(func() {
		if err := retire(e.seg.mem); err != nil {
			e.cfg.Logger.Error("shm: replacing the segment's mapping", "rank", e.cfg.Rank, "path", e.seg.path, "err", err)
		}
		e.cfg.Logger.Error("shm: giving the segment up", "rank", e.cfg.Rank, "err", cause)
		for p := range e.cfg.Size {
			if p != e.cfg.Rank {
				e.markLost(p, cause)
			}
		}
		e.failed.Store(true)
	})
}

// base is the address of the segment's mapping; holds reports whether
// addr lies in it.
func (s *segment) base() uintptr { return uintptr(unsafe.Pointer(&s.mem[0])) }

func (s *segment) holds(addr uintptr) bool { return addr-s.base() < uintptr(len(s.mem)) }
