package task

import (
	"fmt"
	"runtime"

	"github.com/plexus-hpc/plexus/comm"
)

// T is what a running task knows: its rank and its group, into which
// it spawns more tasks. The group's Wait covers them.
//
// A T is valid while its task runs; its methods may be called from the
// task's goroutine and from goroutines the task waits for.
type T struct {
	p *Pool
	g *group
}

// Rank returns the rank the task runs on.
func (t *T) Rank() int { return t.p.Rank() }

// Size returns the number of ranks.
func (t *T) Size() int { return t.p.Size() }

// Spawn queues a task of f with args in this rank's public queue; any
// rank may steal it.
func (t *T) Spawn(f Func, args []byte) error { return t.p.spawn(t.g, f, args) }

// SpawnOn runs a task of f with args on rank; it is not stolen.
func (t *T) SpawnOn(rank int, f Func, args []byte) error { return t.p.spawnOn(t.g, rank, f, args) }

// Yield lets the rank's other goroutines run for a moment: the timer that
// sends the active messages the task's spawns queued once they are old
// enough, the handlers of arrived ones, the other workers. A task that
// computes for long without returning should call it every few tens of
// microseconds of work: Go preempts a busy goroutine only after about ten
// milliseconds, and on a rank bound to one CPU what it queued for other
// ranks waits that long meanwhile, so that the ranks take turns instead
// of working at once (docs/design/apps.md, UTS-Mem). Between tasks a
// worker takes the next one without yielding.
func (t *T) Yield() {
	if t.p.thief.Swap(false) {
		t.p.e.Push()
	}
	runtime.Gosched()
}

// ParallelFor queues the iterations [start, start+n) of body as one
// stealable task of the group, which splits as it runs. It does not wait
// for them.
func (t *T) ParallelFor(start, n int64, body Loop) error { return t.p.loop(t.g, start, n, body) }

// spawn queues a task of f in the public queue.
func (p *Pool) spawn(g *group, f Func, args []byte) error {
	it, err := p.funcItem(g, f, args)
	if err != nil {
		return err
	}
	return p.push(it, &p.public)
}

// spawnOn runs a task of f on rank: here, in the private queue; at
// another rank, sent in a Post that rank queues privately.
func (p *Pool) spawnOn(g *group, rank int, f Func, args []byte) error {
	if rank < 0 || rank >= p.Size() {
		return fmt.Errorf("%w: spawn %q on rank %d, world of %d", comm.ErrBadRank, f.name, rank, p.Size())
	}
	it, err := p.funcItem(g, f, args)
	if err != nil {
		return err
	}
	if rank == p.Rank() {
		return p.push(it, &p.private)
	}
	return p.send(g, rank, it)
}

// send posts it to rank, counted in g.sent before it can be received;
// a Post that fails was never sent, so it is uncounted.
func (p *Pool) send(g *group, rank int, it *item) error {
	p.mu.Lock()
	g.sent++
	p.mu.Unlock()
	err := p.e.Post(p.ctx, rank, p.ids.spawn, appendItem(nil, it))
	if err != nil {
		p.mu.Lock()
		g.sent--
		p.mu.Unlock()
		return fmt.Errorf("task: spawn on rank %d: %w", rank, err)
	}
	return nil
}

// loop queues [start, start+n) of body as one public task.
func (p *Pool) loop(g *group, start, n int64, body Loop) error {
	if int(body.idx) >= len(p.loops) || p.loops[body.idx].name != body.name || body.name == "" {
		return fmt.Errorf("%w: loop %q", ErrBadFunc, body.name)
	}
	if n < 0 || start > maxInt64-n {
		return fmt.Errorf("%w: [%d, +%d)", ErrBadRange, start, n)
	}
	if n == 0 {
		return nil
	}
	grain := p.cfg.Grain
	if grain == 0 {
		grain = autoGrain(n, p.Size(), p.cfg.Workers)
	}
	it := &item{g: g, gid: g.id, kind: kindRange, fn: body.idx, lo: start, n: n, grain: grain}
	return p.push(it, &p.public)
}

// funcItem checks a spawn's function and args and makes its task.
func (p *Pool) funcItem(g *group, f Func, args []byte) (*item, error) {
	switch {
	case int(f.idx) >= len(p.funcs) || p.funcs[f.idx].name != f.name || f.name == "":
		return nil, fmt.Errorf("%w: func %q", ErrBadFunc, f.name)
	case len(args) > p.cfg.MaxArgs:
		return nil, fmt.Errorf("%w: %d bytes of args for %q, MaxArgs %d", ErrTooLarge, len(args), f.name, p.cfg.MaxArgs)
	}
	return &item{g: g, gid: g.id, kind: kindFunc, fn: f.idx, args: append([]byte(nil), args...)}, nil
}

// push queues it here and wakes a worker.
func (p *Pool) push(it *item, q *deque) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	p.activeLocked(it.g, 1)
	q.pushBack(it)
	p.work.Signal()
	return nil
}

// run runs one task and counts it finished.
func (p *Pool) run(it *item) {
	t := &T{p: p, g: it.g}
	var err error
	if it.kind == kindFunc {
		err = p.funcs[it.fn].f(p.ctx, t, it.args)
	} else {
		err = p.runRange(t, it)
	}
	p.finish(it.g, err)
}

// runRange splits the range as Cilk's loops do, queueing the upper
// halves for this rank's workers and for thieves until at most grain
// iterations are left, then runs those in order.
func (p *Pool) runRange(t *T, it *item) error {
	lo, n := it.lo, it.n
	for n > it.grain {
		h := n / 2
		rest := &item{g: it.g, gid: it.gid, kind: kindRange, fn: it.fn, lo: lo + h, n: n - h, grain: it.grain}
		if err := p.push(rest, &p.public); err != nil {
			return err
		}
		n = h
	}
	body := p.loops[it.fn].f
	for i := lo; i < lo+n; i++ {
		if err := body(p.ctx, t, i); err != nil {
			return fmt.Errorf("loop %q index %d: %w", p.loops[it.fn].name, i, err)
		}
	}
	return nil
}

// finish counts a task of g done, keeping the first error.
func (p *Pool) finish(g *group, err error) {
	p.stats.tasks.Add(1)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil && g.err == "" {
		g.err = fmt.Sprintf("rank %d: %v", p.Rank(), err)
	}
	p.activeLocked(g, -1)
}

// worker runs tasks until the pool closes.
func (p *Pool) worker() {
	defer p.wg.Done()
	for {
		it, ok := p.take()
		if !ok {
			return
		}
		p.run(it)
	}
}

// take waits for a task: private ones first (they can run nowhere
// else), then the newest public one; tasks of failed groups are dropped.
func (p *Pool) take() (*item, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for !p.closed {
		it := p.private.popFront()
		if it == nil {
			it = p.public.popBack()
		}
		switch {
		case it == nil:
			p.idle++
			p.ring()
			p.work.Wait()
			p.idle--
		case it.g.failed:
			p.activeLocked(it.g, -1)
		default:
			return it, true
		}
	}
	return nil, false
}

// ring tells the stealer that something it waits for may have changed.
func (p *Pool) ring() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}
