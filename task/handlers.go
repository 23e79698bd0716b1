package task

import (
	"context"
	"encoding/binary"
	"fmt"
)

// The pool's am handlers. Each takes the pool's mutex briefly and never
// waits for anything else: am runs a source's handlers one at a time, so
// a handler that waited could hold up the messages it waits for.

// handleSpawn queues, privately, the tasks another rank's SpawnOn sent.
func (p *Pool) handleSpawn(_ context.Context, from int, args []byte) ([]byte, error) {
	items, err := decodeItems(args, len(p.funcs), len(p.loops))
	if err != nil {
		return nil, fmt.Errorf("task: spawn from rank %d: %w", from, err)
	}
	p.accept(items, &p.private)
	return nil, nil
}

// accept counts received tasks into their groups and queues them in q;
// tasks of groups finished here are dropped.
func (p *Pool) accept(items []*item, q *deque) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	n := 0
	for _, it := range items {
		g := p.groupLocked(it.gid)
		if g == nil || p.closed {
			continue
		}
		it.g = g
		g.recv++
		p.activeLocked(g, 1)
		q.pushBack(it)
		n++
	}
	p.work.Broadcast()
	return n
}

// handleSteal gives a thief half of the public queue, oldest first:
// in a recursive loop the oldest pieces are the largest. The tasks leave
// this rank's counts and enter its sent counts in the same critical
// section, so a wave never sees them nowhere.
func (p *Pool) handleSteal(context.Context, int, []byte) ([]byte, error) {
	p.thief.Store(true) // an idle rank: the next T.Yield sends what waits for it
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []byte
	given := 0
	for k := stealCount(p.public.len()); k > 0; k-- {
		it := p.public.front()
		if len(out)+it.wireSize() > p.cfg.StealBytes {
			break
		}
		p.public.popFront()
		p.activeLocked(it.g, -1)
		if it.g.failed {
			continue
		}
		it.g.sent++
		out = appendItem(out, it)
		given++
	}
	p.stats.given.Add(uint64(given))
	return out, nil
}

// handleProbe answers the master's wave about a group: idle, sent,
// received, first error. A group this rank has not made yet is busy:
// its code may still spawn into it.
func (p *Pool) handleProbe(_ context.Context, _ int, args []byte) ([]byte, error) {
	if len(args) != 8 {
		return nil, fmt.Errorf("%w: probe of %d bytes, want 8", ErrMalformed, len(args))
	}
	return appendReport(nil, p.probe(binary.LittleEndian.Uint64(args))), nil
}

func (p *Pool) probe(id uint64) report {
	p.mu.Lock()
	defer p.mu.Unlock()
	if g, ok := p.groups[id]; ok {
		return reportLocked(g)
	}
	// Before the decision the group can only have ended here by its
	// Wait giving up; a group not made yet is busy.
	return report{gone: id < p.next}
}

// handleDecided takes the master's decision about a group to this
// rank's Wait. A rank that has not made the group yet keeps the decision
// for its Wait (a lost rank can decide a group before every rank made
// it); one that already finished it drops it.
func (p *Pool) handleDecided(_ context.Context, from int, args []byte) ([]byte, error) {
	if len(args) < 8 {
		return nil, fmt.Errorf("%w: decision of %d bytes from rank %d", ErrMalformed, len(args), from)
	}
	o, err := decodeOutcome(args[8:])
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if g := p.groupLocked(binary.LittleEndian.Uint64(args)); g != nil {
		select {
		case g.decided <- o:
		default: // a second decision cannot happen; keep the first
		}
	}
	return nil, nil
}

// handlePing answers a waiting rank that checks the master is alive.
func handlePing(context.Context, int, []byte) ([]byte, error) { return nil, nil }

// handleIdle wakes the master's Wait on a group when another rank ran
// out of its tasks, so that the next wave goes now rather than after a
// fallback, and keeps the report the hint carries: the rank's counters
// when it went idle, which can stand for that rank's answer to a wave
// (hintWave). It is only a hint: the waves decide.
func (p *Pool) handleIdle(_ context.Context, from int, args []byte) ([]byte, error) {
	if len(args) < 8 {
		return nil, fmt.Errorf("%w: idle hint of %d bytes from rank %d, want 8 and a report", ErrMalformed, len(args), from)
	}
	r, err := decodeReport(args[8:])
	if err != nil {
		return nil, fmt.Errorf("idle hint from rank %d: %w", from, err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.bound { // no group here can be waited on yet; p.e is not set
		return nil, nil
	}
	if n := p.e.Size(); from < 0 || from >= n {
		return nil, fmt.Errorf("%w: idle hint from rank %d, world of %d", ErrMalformed, from, n)
	}
	if g, ok := p.groups[binary.LittleEndian.Uint64(args)]; ok {
		if g.hints == nil {
			g.hints, g.hinted = make([]report, p.e.Size()), make([]bool, p.e.Size())
		}
		g.hints[from], g.hinted[from] = r, true
		select {
		case g.idle <- struct{}{}:
		default:
		}
	}
	return nil, nil
}
