package ring

import "context"

// Pair is one end of a queue pair (Smelt's bidirectional channel): it
// sends on one ring and receives on another. One goroutine may send and
// one receive at a time, as on a Ring.
type Pair struct{ tx, rx *Ring }

// NewPairs returns the two ends of a queue pair of heap rings with slots
// slots each: a sends what b receives and b sends what a receives. It
// panics on a bad slot count, as NewHeap does.
func NewPairs(slots int) (a, b *Pair) {
	ab, ba := NewHeap(slots), NewHeap(slots)
	return &Pair{tx: ab, rx: ba}, &Pair{tx: ba, rx: ab}
}

// Tx returns the ring this end sends on.
func (p *Pair) Tx() *Ring { return p.tx }

// Rx returns the ring this end receives on.
func (p *Pair) Rx() *Ring { return p.rx }

// MaxMessage returns the longest message Send accepts.
func (p *Pair) MaxMessage() int { return p.tx.MaxMessage() }

// TrySend is Ring.TrySend on the sending ring; only this end's sender may
// call it.
func (p *Pair) TrySend(m []byte) (bool, error) { return p.tx.TrySend(m) }

// Send is Ring.Send on the sending ring; only this end's sender may call it.
func (p *Pair) Send(ctx context.Context, m []byte) error { return p.tx.Send(ctx, m) }

// TryRecv is Ring.TryRecv on the receiving ring; only this end's receiver
// may call it.
func (p *Pair) TryRecv(buf []byte) (int, bool, error) { return p.rx.TryRecv(buf) }

// Recv is Ring.Recv on the receiving ring; only this end's receiver may
// call it.
func (p *Pair) Recv(ctx context.Context, buf []byte) (int, error) { return p.rx.Recv(ctx, buf) }
