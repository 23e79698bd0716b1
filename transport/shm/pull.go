package shm

// Single-copy pulls: a rank reads a peer's buffer straight into its own
// with the kernel's cross-memory attach (process_vm_readv), so a large
// message costs one copy instead of two through the ring, and no process
// ever dereferences another's pointer — a bad address is an error
// (EFAULT), never a crash.
//
// Probe: at Open every rank stores a random value in a canary word of its
// own heap and publishes, in its rank line, the value and then the word's
// address. A reader probes an owner by reading the owner's canary word
// from the owner's pid and comparing it with the published value; the
// outcome (capable or incapable: EPERM under a ptrace policy, ESRCH, a
// mismatch) goes into pull word (reader, owner). The owner offers its
// buffers to reader only once that word says capable (PullableBy); reader
// probes at Open, on the monitor's ticks and before a Pull, whichever
// comes first. Every Pull reads the canary again in the same system call
// as the data, so a pid that was reused by another process is caught.
//
// After the read the owner must still be alive and open: an owner stores
// closed in its rank line before its sends fail and their buffers may be
// reused, so a read that saw alive afterwards read the buffer before any
// reuse.

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"sync/atomic"
	"unsafe"
)

// span is a range of a peer's address space.
type span struct{ addr, len uint64 }

// readMem reads remote ranges of process pid into local buffers, as
// process_vm_readv: it returns the bytes read, filling local in order.
type readMem func(pid int, local [][]byte, remote []span) (int, error)

// publishCanary sets this rank's canary and publishes it in its rank
// line, value first.
func (e *Endpoint) publishCanary() {
	e.canary = new(uint64)
	v := rand.Uint64() | 1 // never zero
	*e.canary = v
	r := e.cfg.Rank
	atomic.StoreUint64(e.seg.canaryWant(r), v)
	atomic.StoreUint64(e.seg.canaryAddr(r), uint64(uintptr(unsafe.Pointer(e.canary))))
}

// PullableBy reports whether peer has found that it can read this rank's
// memory, so a sender may offer peer a buffer to Pull instead of sending
// it through the ring. Any goroutine may call it.
func (e *Endpoint) PullableBy(peer int) bool {
	e.pulling.RLock()
	defer e.pulling.RUnlock()
	if peer < 0 || peer >= e.cfg.Size || peer == e.cfg.Rank || e.closing.Load() || e.lostErr(peer) != nil {
		return false
	}
	return atomic.LoadUint64(e.seg.pull(peer, e.cfg.Rank)) == pullCapable
}

// Pull copies len(dst) bytes at addr in peer's memory into dst, with one
// kernel copy. addr must be what peer offered, and peer must keep that
// memory unchanged until it hears back. It fails with ErrNoPull if this
// rank cannot read peer's memory (nothing was read), with ErrPeerLost if
// peer is gone or closed (dst may then hold anything), or with the
// kernel's error for a bad address. Any goroutine may call it, many at
// once; it must not be called from Deliver, as it may take milliseconds.
func (e *Endpoint) Pull(peer int, addr uint64, dst []byte) error {
	if peer < 0 || peer >= e.cfg.Size || peer == e.cfg.Rank {
		return fmt.Errorf("shm: rank %d cannot pull from rank %d (size %d)", e.cfg.Rank, peer, e.cfg.Size)
	}
	e.pulling.RLock()
	defer e.pulling.RUnlock()
	if err := e.sendable(peer); err != nil {
		return err
	}
	if !e.probe(peer) {
		return fmt.Errorf("%w: rank %d from rank %d", ErrNoPull, e.cfg.Rank, peer)
	}
	if len(dst) == 0 {
		return nil
	}
	if err := e.read(peer, addr, dst); err != nil {
		return err
	}
	return e.stillThere(peer)
}

// probe returns whether this rank can read peer's memory, probing it
// first if nobody has yet. It stays unprobed while peer has not published
// its canary.
func (e *Endpoint) probe(peer int) bool {
	w := e.seg.pull(e.cfg.Rank, peer)
	if s := atomic.LoadUint64(w); s != pullUnprobed {
		return s == pullCapable
	}
	pid := atomic.LoadUint64(e.seg.pid(peer))
	at := atomic.LoadUint64(e.seg.canaryAddr(peer))
	if pid == 0 || at == 0 {
		return false
	}
	want := atomic.LoadUint64(e.seg.canaryWant(peer))
	got := make([]byte, 8)
	n, err := e.cfg.readMem(int(pid), [][]byte{got}, []span{{at, 8}})
	outcome := uint64(pullIncapable)
	switch {
	case err == nil && n == 8 && *(*uint64)(unsafe.Pointer(&got[0])) == want:
		outcome = pullCapable
	case err == nil:
		err = fmt.Errorf("canary %x, want %#x", got[:n], want)
		fallthrough
	default:
		e.probeFailed(peer, pid, err)
	}
	atomic.CompareAndSwapUint64(w, pullUnprobed, outcome)
	return atomic.LoadUint64(w) == pullCapable
}

// probeFailed logs why this rank cannot read peer's memory. A peer that
// has exited or closed is expected at the end of a job, and logged at
// Debug; any other reason (a ptrace policy, say) is logged at Warn once
// per Endpoint, not once per peer.
func (e *Endpoint) probeFailed(peer int, pid uint64, err error) {
	args := []any{"rank", e.cfg.Rank, "peer", peer, "pid", pid, "err", err}
	if errors.Is(err, errNoProcess) || e.sendable(peer) != nil {
		e.cfg.Logger.Debug("shm: peer gone before its memory was probed", args...)
		return
	}
	if e.probeLogged.CompareAndSwap(false, true) {
		e.cfg.Logger.Warn("shm: cannot read the peer's memory; large messages to it go through the ring", args...)
	}
}

// refusePulls marks every peer unreadable (Config.NoPull).
func (e *Endpoint) refusePulls() {
	for p := range e.cfg.Size {
		atomic.StoreUint64(e.seg.pull(e.cfg.Rank, p), pullIncapable)
	}
}

// probePeers probes every peer that has published its canary and has not
// been probed. Open and the monitor call it.
func (e *Endpoint) probePeers() {
	for p := range e.cfg.Size {
		if p != e.cfg.Rank {
			e.probe(p)
		}
	}
}

// read copies peer's memory at addr into dst and the peer's canary after
// it, and checks the canary. It copies at most maxRawRead bytes a system
// call (vmRead's calls are raw); the last call reads the canary too, so a
// pid that another process took over at any point before it fails the
// check, whatever the earlier calls read. Each call either fails or makes
// progress.
func (e *Endpoint) read(peer int, addr uint64, dst []byte) error {
	pid := int(atomic.LoadUint64(e.seg.pid(peer)))
	at := atomic.LoadUint64(e.seg.canaryAddr(peer))
	want := atomic.LoadUint64(e.seg.canaryWant(peer))
	var canary [8]byte
	for off := 0; ; {
		rest := dst[off:]
		local, remote := [][]byte{rest, canary[:]}, []span{{addr + uint64(off), uint64(len(rest))}, {at, 8}}
		last := len(rest) <= maxRawRead
		if !last {
			rest = rest[:maxRawRead]
			local, remote = local[:1], remote[:1]
			local[0], remote[0].len = rest, maxRawRead
		}
		n, err := e.cfg.readMem(pid, local, remote)
		switch {
		case err != nil:
			return e.readErr(peer, pid, addr, len(dst), err)
		case last && n == len(rest)+8:
			if *(*uint64)(unsafe.Pointer(&canary)) != want {
				return e.gone(peer, fmt.Errorf("pid %d no longer holds its canary (reused by another process?)", pid))
			}
			return nil
		case n == 0 || n > len(rest):
			return fmt.Errorf("shm: pull from rank %d: %d of %d bytes, then no progress", peer, off+n, len(dst))
		}
		off += n
	}
}

// maxRawRead bounds the bytes one system call of a pull copies, and so
// how long the rank's P stays unavailable to its other goroutines (a few
// hundred microseconds; see vmRead). Smaller calls cost large pulls
// bandwidth (docs/benchmarks.md, "Pulls as raw system calls" in section
// "Shared memory on a new host", 2026-11-25).
const maxRawRead = 4 << 20

// readErr classifies a failed read.
func (e *Endpoint) readErr(peer, pid int, addr uint64, n int, err error) error {
	switch {
	case errors.Is(err, errNoProcess):
		return e.gone(peer, fmt.Errorf("process %d: %w", pid, err))
	case errors.Is(err, errNoPermission):
		atomic.StoreUint64(e.seg.pull(e.cfg.Rank, peer), pullIncapable)
		return fmt.Errorf("%w: rank %d from rank %d: %w", ErrNoPull, e.cfg.Rank, peer, err)
	}
	return fmt.Errorf("shm: pull of %d bytes at %#x from rank %d: %w", n, addr, peer, err)
}

// gone marks peer lost with cause and returns the error it is lost with.
func (e *Endpoint) gone(peer int, cause error) error {
	e.markLost(peer, cause)
	return e.lostErr(peer)
}

// stillThere fails if peer closed or was lost: then its buffer may have
// been reused while it was read.
func (e *Endpoint) stillThere(peer int) error {
	if atomic.LoadUint64(e.seg.state(peer)) != stateAlive {
		return e.gone(peer, fmt.Errorf("closed during a pull"))
	}
	return e.lostErr(peer)
}
