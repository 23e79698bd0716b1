package task

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/am"
)

// Pool is one rank's task scheduler: a bounded set of worker goroutines,
// a private queue of tasks that must run here (SpawnOn), a public queue
// of tasks any rank may steal (Spawn, ParallelFor pieces), and the
// completion events (Groups) that tell when tasks spawned anywhere have
// finished.
//
// Concurrency contract: Register and RegisterLoop are called before
// Bind, in the same order on every rank; NewGroup and ParallelFor are
// collective (every rank calls them in the same order) and may be called
// from any goroutine; Stats from any goroutine; Close once.
type Pool struct {
	cfg   Config
	reg   *am.Registry
	e     *am.Engine
	funcs []fnEntry
	loops []loopEntry
	ids   handlerIDs

	ctx    context.Context // ends at Close; tasks and the pool's am calls take it
	cancel context.CancelFunc
	wg     sync.WaitGroup // workers and the stealer
	kick   chan struct{}  // a token when a worker went idle or a group began
	stats  counters
	thief  atomic.Bool // a rank asked to steal since the last T.Yield that pushed

	// mu guards the queues, the groups and their counters, and the
	// fields below. The am handlers take it too, so they never block
	// for long.
	mu      sync.Mutex
	work    *sync.Cond // signalled when a task is queued or the pool closes
	private deque      // FIFO: tasks sent here by SpawnOn
	public  deque      // LIFO for the workers here, FIFO for thieves
	groups  map[uint64]*group
	next    uint64 // ID of the next group this rank makes
	live    int    // groups made here whose Wait has not returned
	idle    int    // workers waiting for a task
	dead    []bool // ranks lost, never stolen from again
	bound   bool
	closed  bool
	rnd     *rand.Rand
}

type fnEntry struct {
	name string
	f    func(ctx context.Context, t *T, args []byte) error
}

type loopEntry struct {
	name string
	f    func(ctx context.Context, t *T, i int64) error
}

type handlerIDs struct{ spawn, steal, probe, decided, ping, idle am.ID }

// New makes a rank's pool and registers its handlers in reg, which must
// then go to am.New; Bind gives the pool that engine and starts it.
// Every rank calls New, then Register and RegisterLoop, in the same
// order.
func New(reg *am.Registry, cfg Config) (*Pool, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	p := &Pool{
		cfg: cfg.withDefaults(), reg: reg, kick: make(chan struct{}, 1),
		groups: make(map[uint64]*group),
		rnd:    rand.New(rand.NewPCG(rand.Uint64(), rand.Uint64())),
	}
	p.work = sync.NewCond(&p.mu)
	p.ctx, p.cancel = context.WithCancel(context.Background())
	// The queues exist before the engine: other ranks may send tasks as
	// soon as their am.New returns, before this Bind.
	for _, h := range []struct {
		name string
		id   *am.ID
		f    am.Handler
	}{
		{"task.spawn", &p.ids.spawn, p.handleSpawn},
		{"task.steal", &p.ids.steal, p.handleSteal},
		{"task.probe", &p.ids.probe, p.handleProbe},
		{"task.decided", &p.ids.decided, p.handleDecided},
		{"task.ping", &p.ids.ping, handlePing},
		{"task.idle", &p.ids.idle, p.handleIdle},
	} {
		id, err := reg.Register(h.name, h.f)
		if err != nil {
			return nil, err
		}
		*h.id = id
	}
	return p, nil
}

// Func is a task function registered under one name on every rank, so
// that a task can run on whichever rank takes it.
type Func struct {
	idx  uint32
	name string
}

// Loop is a loop body registered under one name on every rank, for
// ParallelFor.
type Loop struct {
	idx  uint32
	name string
}

// Register registers f under name as a task function. f runs on a
// worker of the rank that takes the task, with the args given to the
// spawn (valid while f runs; copy what it keeps) and a T to spawn more
// tasks in the same group. ctx ends when the pool closes. f's error
// makes the group's Wait fail with ErrTask.
func (p *Pool) Register(name string, f func(ctx context.Context, t *T, args []byte) error) (Func, error) {
	if f == nil {
		return Func{}, fmt.Errorf("%w: nil func %q", ErrRegistry, name)
	}
	idx, err := p.add("task.func/"+name, func() int { p.funcs = append(p.funcs, fnEntry{name, f}); return len(p.funcs) - 1 })
	return Func{idx: uint32(idx), name: name}, err
}

// RegisterLoop registers body under name as a loop body for
// ParallelFor: it runs once for each index i of a loop, on whichever
// rank takes that index.
func (p *Pool) RegisterLoop(name string, body func(ctx context.Context, t *T, i int64) error) (Loop, error) {
	if body == nil {
		return Loop{}, fmt.Errorf("%w: nil loop %q", ErrRegistry, name)
	}
	idx, err := p.add("task.loop/"+name, func() int { p.loops = append(p.loops, loopEntry{name, body}); return len(p.loops) - 1 })
	return Loop{idx: uint32(idx), name: name}, err
}

// add registers name with am, so that am.New checks that every rank
// registered the same task functions, then adds the function locally.
// The am handler is never sent to: tasks travel in the pool's messages.
func (p *Pool) add(name string, local func() int) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bound {
		return 0, fmt.Errorf("%w: %q registered after Bind", ErrRegistry, name)
	}
	if _, err := p.reg.Register(name, notSent); err != nil {
		return 0, fmt.Errorf("task: %w", err)
	}
	return local(), nil
}

func notSent(context.Context, int, []byte) ([]byte, error) {
	return nil, fmt.Errorf("%w: task functions run from the pool's messages, not their own", ErrBadFunc)
}

// Bind makes e, built over the registry given to New, the engine that
// carries this pool's messages, and starts the workers and the stealer.
func (p *Pool) Bind(e *am.Engine) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bound {
		return fmt.Errorf("%w: Bind called twice", ErrRegistry)
	}
	p.e, p.bound, p.dead = e, true, make([]bool, e.Size())
	for range p.cfg.Workers {
		p.wg.Add(1)
		go p.worker()
	}
	if !p.cfg.NoSteal && e.Size() > 1 {
		p.wg.Add(1)
		go p.stealer()
	}
	return nil
}

// Rank returns this rank.
func (p *Pool) Rank() int { return p.e.Rank() }

// Size returns the number of ranks.
func (p *Pool) Size() int { return p.e.Size() }

// Close stops the workers once their running tasks return, and the
// stealer; queued tasks are dropped and pending Waits fail with
// ErrClosed. It does not close the engine. Ranks agree that their work
// is done (a Wait, then a barrier) before they close.
func (p *Pool) Close(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.closed = true
	p.work.Broadcast()
	p.mu.Unlock()
	p.cancel()
	done := make(chan struct{})
	go func() { p.wg.Wait(); close(done) }()
	select {
	case <-done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
