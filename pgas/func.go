package pgas

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/am"
)

// Func is a function that every rank registered under one name, which
// Ptr.Call applies to an element at its home.
// Funcs registered alike on every rank are interchangeable: a Func
// from one rank's RegisterFunc may serve another's pointers.
type Func[T Number] struct {
	id   am.ID
	idx  int // in Heap.funcs
	name string
}

// RegisterFunc registers f under name, for Ptr.Call. Every rank
// registers the same names in the same order, after New and before
// am.New (am.New checks that they did). f runs at the element's home,
// atomically with respect to every delegate on the element, so it must
// be quick and must not call delegates. On a 4- or 8-byte element f may
// run more than once for one Call: when another delegate changed the
// element while f ran, f runs again on the new value, and only the last
// run's result counts; so f must not have side effects. It gets the
// element's value and arg, and returns the element's new value and a
// reply for the caller; when it returns an error, the element is left as
// it was and the caller gets the error as an *am.RemoteError when the
// home is another rank, as itself when it is this one.
func RegisterFunc[T Number](h *Heap, name string, f func(v T, arg []byte) (T, []byte, error)) (Func[T], error) {
	// Refused here: a nil f would crash the home rank's engine, and an
	// empty name is the zero Func's, which Call refuses.
	if f == nil || name == "" {
		return Func[T]{}, fmt.Errorf("pgas: func %q: %w: a Func needs a name and a function (nil: %v)", name, am.ErrRegistry, f == nil)
	}
	k, size := kindOf[T]()
	home := h.homeOp(-1, func(r request, elem []byte) ([]byte, error) {
		if r.k != k || r.size != size {
			return nil, fmt.Errorf("%w: func %q on an element of kind %d, %d bytes", ErrBadSize, name, r.k, r.size)
		}
		if isWord(r.off, r.size) {
			return applyWord(h, r, f)
		}
		v, reply, err := f(get[T](elem), r.ops)
		if err == nil {
			err = h.checkReply(reply)
		}
		if err == nil {
			put(elem, v)
		}
		return reply, err
	}, nil)
	id, err := h.reg.Register("pgas.func/"+name, home)
	if err != nil {
		return Func[T]{}, fmt.Errorf("pgas: func %q: %w", name, err)
	}
	h.funcs = append(h.funcs, home)
	return Func[T]{id: id, idx: len(h.funcs) - 1, name: name}, nil
}

// Call applies f to the element at its home with arg and returns f's
// reply; arg may be as long as the engine's MaxArgs less a few bytes.
func (p Ptr[T]) Call(ctx context.Context, f Func[T], arg []byte) ([]byte, error) {
	if p.h == nil || f.idx >= len(p.h.funcs) || f.name == "" {
		return nil, fmt.Errorf("%w: func %q on pointer %v", ErrBadAddress, f.name, p.addr)
	}
	return p.do(ctx, "func "+f.name, f.id, p.h.funcs[f.idx], append(p.args(), arg...))
}

// applyWord is a Func on a word (word.go): f on the word's value, stored
// by a compare-and-swap that fails, and f runs again, when a delegate on
// the word changed it meanwhile. The caller holds h.mu, which keeps
// other Funcs and the lock path away but not the word path.
func applyWord[T Number](h *Heap, r request, f func(v T, arg []byte) (T, []byte, error)) ([]byte, error) {
	for {
		old := h.loadWord(r.off, r.size)
		v, reply, err := f(fromBits[T](r.k, r.size, old), r.ops)
		if err == nil {
			err = h.checkReply(reply)
		}
		if err != nil {
			return reply, err
		}
		if h.casWord(r.off, r.size, old, bitsOf(r.k, v)) {
			return reply, nil
		}
	}
}

// checkReply refuses a Func's reply longer than the engine carries,
// before the element is updated: a Call that fails must leave the
// element as it was, wherever its home is.
func (h *Heap) checkReply(reply []byte) error {
	if len(reply) > h.e.MaxArgs() {
		return fmt.Errorf("%w: reply of %d bytes, MaxArgs %d", am.ErrTooLarge, len(reply), h.e.MaxArgs())
	}
	return nil
}
