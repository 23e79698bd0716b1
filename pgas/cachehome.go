package pgas

import (
	"context"
	"encoding/binary"
	"fmt"
)

// The home side of the cache operations. A get's args are the offset of
// a run of home memory (u64) and its length (u32), and its reply is the
// run's bytes; a put's args are the offset then the bytes to store. Each
// runs under h.mu, as one delegate does, so a run is read or written
// whole with respect to every lock-path delegate at this rank, and word
// by word with respect to the word path (wordrun.go).
const (
	getArgs = 8 + 4
	putHead = 8
)

// appendGet appends a get of n bytes at off to b.
func appendGet(b []byte, off int64, n int) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(off))
	return binary.LittleEndian.AppendUint32(b, uint32(n))
}

// run checks that [off, off+n) lies in the heap; both come from the
// network, so nothing is trusted.
func (h *Heap) run(off int64, n int64) error {
	if off < 0 || n < 0 || off > int64(len(h.mem)) || n > int64(len(h.mem))-off { // no overflow
		return fmt.Errorf("%w: run of %d bytes at offset %d, heap of %d", ErrBadAddress, n, off, len(h.mem))
	}
	return nil
}

// get is the home of a cache's read: it replies with a copy of the run.
func (h *Heap) get(_ context.Context, _ int, args []byte) ([]byte, error) {
	if len(args) != getArgs {
		return nil, fmt.Errorf("%w: %d bytes of get args, want %d", ErrBadSize, len(args), getArgs)
	}
	off := int64(binary.LittleEndian.Uint64(args))
	n := int64(binary.LittleEndian.Uint32(args[8:]))
	if err := h.run(off, n); err != nil {
		return nil, err
	}
	reply := make([]byte, n)
	h.lock()
	h.loadRun(reply, off)
	h.mu.Unlock()
	return reply, nil
}

// put is the home of a cache's write-back: it stores the run.
func (h *Heap) put(_ context.Context, _ int, args []byte) ([]byte, error) {
	if len(args) < putHead {
		return nil, fmt.Errorf("%w: %d bytes of put args, want at least %d", ErrBadSize, len(args), putHead)
	}
	off := int64(binary.LittleEndian.Uint64(args))
	data := args[putHead:]
	if err := h.run(off, int64(len(data))); err != nil {
		return nil, err
	}
	h.lock()
	h.storeRun(off, data)
	h.mu.Unlock()
	return nil, nil
}
