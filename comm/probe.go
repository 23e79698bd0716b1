package comm

import (
	"context"
	"sync"
	"sync/atomic"
)

// Probe waits until a message from peer (or AnySource) with tag (or
// AnyTag) has arrived and returns its status without receiving it. Another
// goroutine may receive the message first; see match.Table.Probe.
func (w *World) Probe(ctx context.Context, peer, tag int) (Status, error) {
	if err := w.checkRecv(peer, tag); err != nil {
		return Status{}, err
	}
	w.probes.n.Add(1)
	defer w.probes.n.Add(-1)
	for {
		wake := w.probes.wait()
		if st, ok := w.Iprobe(peer, tag); ok {
			return st, nil
		}
		if err := w.probeWait(peer); err != nil {
			return Status{}, err
		}
		if w.serial {
			if err := w.waitSerial(ctx, wake); err != nil {
				return Status{}, err
			}
			if w.ctx.Err() != nil {
				return Status{}, ErrClosed
			}
			continue
		}
		select {
		case <-wake:
		case <-ctx.Done():
			return Status{}, ctx.Err()
		case <-w.ctx.Done():
			return Status{}, ErrClosed
		}
	}
}

// probeWait has the transport watch what a probe of peer waits on and
// returns why it would wait in vain, or nil.
func (w *World) probeWait(peer int) error {
	if peer == AnySource {
		w.reachAll()
		return w.anyErr()
	}
	w.reach(peer)
	return w.peerErr(peer)
}

// Iprobe reports, without waiting, whether a message from peer with tag
// has arrived, and its status. Bad arguments report false. In a
// serialized world it polls the transport once first, as MPI_Iprobe does.
func (w *World) Iprobe(peer, tag int) (Status, bool) {
	if w.checkRecv(peer, tag) != nil {
		return Status{}, false
	}
	if w.serial {
		w.pollSerial()
	}
	m, k, ok := w.table.Probe(recvKey(peer, tag))
	if !ok {
		return Status{}, false
	}
	return Status{Source: int(k.Source), Tag: int(k.Tag), Len: m.len}, true
}

// prober wakes waiting probes when a message is stored.
//
// Invariants: n counts the probes between their first look at the table
// and their return; ch is closed and replaced, under mu, by every wake
// that sees n > 0. A probe reads ch before it looks at the table and a
// message is stored before wake reads n, so a probe that misses a message
// is woken for it.
type prober struct {
	n  atomic.Int32
	mu sync.Mutex
	ch chan struct{}
}

func (p *prober) init() { p.ch = make(chan struct{}) }

// wait returns the channel the next wake closes.
func (p *prober) wait() <-chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ch
}

// wake wakes every waiting probe; it costs one atomic load when none wait.
func (p *prober) wake() {
	if p.n.Load() == 0 {
		return
	}
	p.mu.Lock()
	close(p.ch)
	p.ch = make(chan struct{})
	p.mu.Unlock()
}
