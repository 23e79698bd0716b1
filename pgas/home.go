package pgas

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"

	"github.com/plexus-hpc/plexus/am"
)

// The delegate operations, one am handler each.
const (
	opRead = iota
	opWrite
	opCAS
	opAdd
	opFence
	opGet     // a cache's read of a run of home memory
	opPut     // a cache's write-back of a run
	opAddPost // an Add, which nobody waits for: no reply to make
	nops
)

var opNames = [nops]string{"pgas.read", "pgas.write", "pgas.cas", "pgas.add", "pgas.fence", "pgas.get", "pgas.put", "pgas.addpost"}

// header is the start of every delegate's args: the element's kind, its
// size and its offset in the home heap; operands follow.
const header = 1 + 1 + 8

// request is a decoded delegate at its home.
type request struct {
	k    kind
	off  int64
	size int
	ops  []byte // operands, each size bytes
}

// decode checks a delegate's args against this heap: they come from the
// network, so nothing is trusted. operands < 0 takes any bytes after the
// header.
func (h *Heap) decode(args []byte, operands int) (request, error) {
	if len(args) < header {
		return request{}, fmt.Errorf("%w: %d bytes of delegate args", ErrBadSize, len(args))
	}
	r := request{k: kind(args[0]), size: int(args[1]), off: int64(binary.LittleEndian.Uint64(args[2:])), ops: args[header:]}
	switch {
	case !validKind(r.k, r.size):
		return request{}, fmt.Errorf("%w: element of kind %d, %d bytes", ErrBadSize, r.k, r.size)
	case operands >= 0 && len(r.ops) != operands*r.size:
		return request{}, fmt.Errorf("%w: %d bytes of operands, want %d", ErrBadSize, len(r.ops), operands*r.size)
	case r.off < 0 || r.off > int64(len(h.mem)-r.size): // no overflow for any off
		return request{}, fmt.Errorf("%w: %d bytes at offset %d, heap of %d", ErrBadAddress, r.size, r.off, len(h.mem))
	}
	return r, nil
}

// validKind reports whether an element of kind k may have size bytes:
// floats their own width, integers 1, 2, 4 or 8.
func validKind(k kind, size int) bool {
	switch k {
	case kindFloat32:
		return size == 4
	case kindFloat64:
		return size == 8
	case kindInt:
		return size == 1 || size == 2 || size == 4 || size == 8
	}
	return false
}

// handlers returns the home side of each operation.
func (h *Heap) handlers() [nops]am.Handler {
	return [nops]am.Handler{
		opRead:    h.homeOp(0, func(r request, e []byte) ([]byte, error) { return bytes.Clone(e), nil }, readWord),
		opWrite:   h.homeOp(1, func(r request, e []byte) ([]byte, error) { copy(e, r.ops); return nil, nil }, writeWord),
		opCAS:     h.homeOp(2, cas, casWordOp),
		opAdd:     h.homeOp(1, fetchAdd, fetchAddWord),
		opFence:   func(context.Context, int, []byte) ([]byte, error) { h.lock(); h.mu.Unlock(); return nil, nil },
		opGet:     h.get,
		opPut:     h.put,
		opAddPost: h.addPost,
	}
}

// addPost is the home of a posted Add: it joins the pending Adds
// (localadds.go), as this rank's own do.
func (h *Heap) addPost(_ context.Context, _ int, args []byte) ([]byte, error) {
	r, err := h.decode(args, 1)
	if err != nil {
		return nil, err
	}
	a := localAdd{off: r.off, k: r.k, size: uint8(r.size)}
	copy(a.delta[:], r.ops)
	h.mu.Lock()
	h.pushAddLocked(a)
	h.mu.Unlock()
	return nil, nil
}

// cas compares bit patterns (so a float NaN equals itself, and -0 does
// not equal +0) and swaps; its reply is 1 when it swapped.
func cas(r request, e []byte) ([]byte, error) {
	if !bytes.Equal(e, r.ops[:r.size]) {
		return []byte{0}, nil
	}
	copy(e, r.ops[r.size:])
	return []byte{1}, nil
}

// fetchAdd adds and replies with the value before.
func fetchAdd(r request, e []byte) ([]byte, error) {
	old := bytes.Clone(e)
	add(r.k, e, r.ops)
	return old, nil
}

// homeOp makes the handler of an operation with the given number of
// operands: decode, then apply w to a word without the lock (word.go),
// or f to any other element under h.mu. w may be nil: f then serves
// words too, and must access them atomically.
func (h *Heap) homeOp(operands int, f func(r request, elem []byte) ([]byte, error), w func(h *Heap, r request) []byte) am.Handler {
	return func(_ context.Context, _ int, args []byte) ([]byte, error) {
		r, err := h.decode(args, operands)
		if err != nil {
			return nil, err
		}
		if w != nil && isWord(r.off, r.size) {
			h.settle()
			return w(h, r), nil
		}
		h.lock()
		defer h.mu.Unlock()
		return f(r, h.mem[r.off:r.off+int64(r.size)])
	}
}

// The word paths of the built-in operations: one atomic instruction
// each (word.go); their replies are those of the lock paths.

func readWord(h *Heap, r request) []byte {
	return appendWord(nil, r.size, h.loadWord(r.off, r.size))
}

func writeWord(h *Heap, r request) []byte {
	h.storeWord(r.off, r.size, wordBits(r.ops, r.size))
	return nil
}

func casWordOp(h *Heap, r request) []byte {
	if h.casWord(r.off, r.size, wordBits(r.ops, r.size), wordBits(r.ops[r.size:], r.size)) {
		return []byte{1}
	}
	return []byte{0}
}

func fetchAddWord(h *Heap, r request) []byte {
	return appendWord(nil, r.size, h.addWord(r.k, r.off, r.size, wordBits(r.ops, r.size)))
}

func wrapOp(err error, op string, a Addr) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("pgas: %s at %v: %w", op, a, err)
}
