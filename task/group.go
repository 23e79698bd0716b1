package task

import (
	"context"
	"fmt"
)

// group is one completion event's state at one rank. The pool's mutex
// guards every field but id and idle.
//
// Invariants: active counts the group's tasks queued or running at this
// rank; sent and recv only grow; held is set from NewGroup until Wait,
// and never again; a group whose state is missing with id < Pool.next
// has finished here, and tasks that still come for it are dropped.
type group struct {
	id      uint64
	created bool  // this rank called NewGroup for it
	held    bool  // this rank's code may still spawn into it from outside a task
	active  int64 // tasks queued or running here
	sent    uint64
	recv    uint64
	err     string        // the first task error here
	failed  bool          // the group cannot finish: its tasks are dropped
	idle    chan struct{} // a token when active drops to 0
	decided chan outcome  // the master's decision, at the other ranks
	hints   []report      // at the master: each rank's report in its latest idle hint
	hinted  []bool        // which ranks' hints are in hints
}

// Group is a global completion event (Grappa's GlobalCompletionEvent):
// every rank makes it with NewGroup, tasks are spawned into it on any
// rank, and Wait returns on every rank once every task spawned into it
// anywhere, by the ranks' code or by its tasks, has finished.
//
// Concurrency contract: Spawn, SpawnOn and ParallelFor may be called by
// any goroutine until Wait is called, not after; Wait is called once.
type Group struct {
	p *Pool
	g *group
}

// NewGroup makes the next completion event. It is collective: every
// rank calls it, in the same order as its other NewGroup and ParallelFor
// calls, and then calls the Group's Wait. It sends no message.
func (p *Pool) NewGroup() (*Group, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case !p.bound:
		return nil, ErrUnbound
	case p.closed:
		return nil, ErrClosed
	}
	g := p.groupLocked(p.next)
	p.next++
	g.created, g.held = true, true
	p.live++
	p.ring()
	return &Group{p: p, g: g}, nil
}

// groupLocked returns the state of group id, making it if this rank has
// not seen it yet, or nil if the group finished here.
func (p *Pool) groupLocked(id uint64) *group {
	if g, ok := p.groups[id]; ok {
		return g
	}
	if id < p.next {
		return nil
	}
	g := &group{id: id, idle: make(chan struct{}, 1), decided: make(chan outcome, 1)}
	p.groups[id] = g
	return g
}

// Spawn queues a task running f with args in this rank's public queue,
// from where any rank may steal it.
func (g *Group) Spawn(f Func, args []byte) error {
	if err := g.open(); err != nil {
		return err
	}
	return g.p.spawn(g.g, f, args)
}

// SpawnOn runs a task of f with args on rank; it is not stolen.
func (g *Group) SpawnOn(rank int, f Func, args []byte) error {
	if err := g.open(); err != nil {
		return err
	}
	return g.p.spawnOn(g.g, rank, f, args)
}

// ParallelFor queues the iterations [start, start+n) of body as one
// stealable task, which splits as it runs; the iterations spread to
// other ranks by stealing. Wait covers them.
func (g *Group) ParallelFor(start, n int64, body Loop) error {
	if err := g.open(); err != nil {
		return err
	}
	return g.p.loop(g.g, start, n, body)
}

func (g *Group) open() error {
	g.p.mu.Lock()
	defer g.p.mu.Unlock()
	if !g.g.held {
		return fmt.Errorf("%w: group %d", ErrDone, g.g.id)
	}
	return nil
}

// Wait returns once every task of the group, on every rank, has
// finished; it is collective. It returns an error wrapping ErrTask if a
// task returned an error, wrapping comm.ErrPeerLost if a rank was lost
// (the group cannot finish), ErrClosed if the pool closed, or ctx.Err().
// After ctx ends the group is abandoned: the other ranks' Waits do not
// return until their own ctx ends.
func (g *Group) Wait(ctx context.Context) error {
	p := g.p
	p.mu.Lock()
	switch {
	case !g.g.held:
		p.mu.Unlock()
		return fmt.Errorf("%w: group %d", ErrDone, g.g.id)
	case p.closed:
		p.mu.Unlock()
		return ErrClosed
	}
	g.g.held = false
	p.activeLocked(g.g, 0) // the hold counted as work: ring idle if none is left
	p.mu.Unlock()
	var err error
	if p.Rank() == master {
		err = p.detect(ctx, g.g)
	} else {
		err = p.poll(ctx, g.g)
	}
	p.finishGroup(g.g, err)
	return err
}

// master is the rank that detects the termination of every group.
const master = 0

// finishGroup forgets a group here once its Wait has its answer; on an
// error its queued tasks are dropped.
func (p *Pool) finishGroup(g *group, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	g.failed = err != nil
	delete(p.groups, g.id)
	p.live--
}

// activeLocked adds d to g's count of tasks here and rings g.idle when
// it drops to 0 with the hold released.
func (p *Pool) activeLocked(g *group, d int64) {
	g.active += d
	if g.active == 0 && !g.held {
		select {
		case g.idle <- struct{}{}:
		default:
		}
	}
}

// reportLocked is this rank's answer to a wave about g.
func reportLocked(g *group) report {
	return report{idle: g.created && !g.held && g.active == 0, sent: g.sent, recv: g.recv, err: g.err}
}
