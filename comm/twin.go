package comm

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// errTwinDown is what a twin reports for a killed or closed rank.
var errTwinDown = errors.New("comm: twin: rank down")

// twin is the in-memory transport: N worlds in one process, connected by
// one ordered queue and one delivering goroutine per ordered pair of
// ranks, with fault injection (Kill). Tests run the same world code over
// it as over TCP, deterministically in order per pair.
//
// Concurrency contract: all methods may be called from any goroutine.
type twin struct {
	mu    sync.Mutex
	n     int
	ev    []events
	down  []bool
	pairs [][]*twinPair // pairs[src][dst]
	in    []sync.WaitGroup
}

// twinPair is the queue from one rank to another.
//
// Invariants: q and stop are guarded by mu; wake holds a token whenever q
// is non-empty or stop is set and the deliverer has not seen it yet; once
// stop is set nothing more is queued.
type twinPair struct {
	mu   sync.Mutex
	q    []twinFrame
	stop bool
	lost bool // tell the receiver the sender is gone
	wake chan struct{}
}

// twinFrame is one frame in flight; buf is a pooled private copy.
type twinFrame struct {
	h   frame.Header
	buf *[]byte
}

// newTwin returns a twin connecting n ranks.
func newTwin(n int) *twin {
	t := &twin{n: n, ev: make([]events, n), down: make([]bool, n), in: make([]sync.WaitGroup, n)}
	t.pairs = make([][]*twinPair, n)
	for s := range t.pairs {
		t.pairs[s] = make([]*twinPair, n)
		for d := range t.pairs[s] {
			t.pairs[s][d] = &twinPair{wake: make(chan struct{}, 1)}
		}
	}
	return t
}

// Opener returns the opener of rank's end, for openWorld.
func (t *twin) Opener(rank int) opener {
	return func(ev events) (transport, error) {
		t.mu.Lock()
		defer t.mu.Unlock()
		if rank < 0 || rank >= t.n || t.ev[rank].Deliver != nil {
			return nil, fmt.Errorf("comm: twin: rank %d out of range or opened twice", rank)
		}
		t.ev[rank] = ev
		for s := range t.n {
			if s != rank {
				t.in[rank].Add(1)
				go t.run(s, rank)
			}
		}
		return &twinEnd{t: t, rank: rank}, nil
	}
}

// Kill makes rank fail as a crashed process would: frames in flight to and
// from it are dropped, its sends fail, and every other rank, and rank
// itself, hear that their peer is lost.
func (t *twin) Kill(rank int) { t.shut(rank, true) }

// shut stops every queue to and from rank. The other ranks hear that rank
// is lost; rank itself hears of its peers only if lostSelf.
func (t *twin) shut(rank int, lostSelf bool) {
	t.mu.Lock()
	if t.down[rank] {
		t.mu.Unlock()
		return
	}
	t.down[rank] = true
	t.mu.Unlock()
	for o := range t.n {
		if o != rank {
			t.pairs[rank][o].halt(true)
			t.pairs[o][rank].halt(lostSelf)
		}
	}
}

// halt stops p; lost says whether its receiver hears of it.
func (p *twinPair) halt(lost bool) {
	p.mu.Lock()
	p.stop, p.lost, p.q = true, lost, nil
	p.mu.Unlock()
	p.signal()
}

func (p *twinPair) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// run delivers the frames from src to dst in order until the pair stops.
// Lost comes from here too, after the last Deliver, as the contract says.
func (t *twin) run(src, dst int) {
	defer t.in[dst].Done()
	p := t.pairs[src][dst]
	ev := t.ev[dst]
	for range p.wake {
		p.mu.Lock()
		q, stop, lost := p.q, p.stop, p.lost
		p.q = nil
		p.mu.Unlock()
		for _, f := range q {
			ev.Deliver(src, f.h, *f.buf)
			putBuf(f.buf)
		}
		if stop {
			if lost {
				ev.Lost(src, errTwinDown)
			}
			return
		}
	}
}

// twinEnd is one rank's transport.
type twinEnd struct {
	t    *twin
	rank int
}

// Send queues a private copy of the frame for peer.
func (e *twinEnd) Send(ctx context.Context, peer int, h frame.Header, payload []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if peer < 0 || peer >= e.t.n || peer == e.rank {
		return fmt.Errorf("comm: twin: rank %d sends to %d", e.rank, peer)
	}
	buf := getBuf(len(payload))
	copy(*buf, payload)
	p := e.t.pairs[e.rank][peer]
	p.mu.Lock()
	if p.stop {
		p.mu.Unlock()
		putBuf(buf)
		return fmt.Errorf("rank %d to %d: %w", e.rank, peer, errTwinDown)
	}
	p.q = append(p.q, twinFrame{h, buf})
	p.mu.Unlock()
	p.signal()
	return nil
}

// Close takes the rank down (its peers hear it as lost) and returns once
// no callback into it can run any more.
func (e *twinEnd) Close() error {
	e.t.shut(e.rank, false)
	e.t.in[e.rank].Wait()
	return nil
}
