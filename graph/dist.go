package graph

import (
	"context"
	"encoding/binary"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
)

// DefaultBatch is the (vertex, parent) pairs one active message carries;
// MaxBatch the most a DistConfig may ask for.
const (
	DefaultBatch = 1024
	MaxBatch     = 2048
)

// DistConfig tunes a Dist. Every rank uses the same one.
type DistConfig struct {
	// Threads is the goroutines of a rank for generation and bottom-up
	// levels; 0 means the CPUs divided by the ranks, at least 1.
	Threads int
	// Batch is the pairs carried by one active message, at most 2048: a
	// rank packs the updates for a home into a batch and Posts it, and
	// am aggregates the Posts. 1 posts every update alone and leaves all
	// aggregation to am, as Grappa's delegates do.
	Batch int
	// Now is the clock of the per-level times; nil means time.Now.
	Now func() time.Time
	// AM configures the engine the Dist makes; its Tag must differ from
	// the program's other engines'.
	AM am.Config
	// Impl is how searches run: Loops (the default) or Tasks.
	Impl Impl
}

func (c DistConfig) withDefaults(ranks int) DistConfig {
	if c.Threads == 0 {
		c.Threads = max(1, runtime.NumCPU()/ranks)
	}
	if c.Batch == 0 {
		c.Batch = DefaultBatch
	}
	if c.Now == nil {
		c.Now = time.Now
	}
	if c.Impl == 0 {
		c.Impl = Loops
	}
	return c
}

// Validate reports what is wrong with c.
func (c DistConfig) Validate() error {
	if c.Threads < 0 {
		return fmt.Errorf("%w: %d threads, want 0 (the default) or more", ErrBadGraph, c.Threads)
	}
	if c.Batch < 0 || c.Batch > MaxBatch {
		return fmt.Errorf("%w: batches of %d vertex updates, want 0 (the default) to %d", ErrBadGraph, c.Batch, MaxBatch)
	}
	if c.Impl < 0 || c.Impl > Tasks {
		return fmt.Errorf("%w: search implementation %d", ErrBadGraph, c.Impl)
	}
	return c.AM.Validate()
}

// Dist is one rank's part of a distributed graph: the vertices
// [Lo, Hi) are homed here, with their adjacency lists, parents and
// levels; every update of them runs here, as Grappa's delegates do.
// Vertex v's home is v / Chunk.
//
// Concurrency contract: Dist's methods are collective (every rank calls
// them in the same order) and are called by one goroutine per rank;
// they run the rank's own goroutines and am handlers inside.
type Dist struct {
	cfg         DistConfig
	c           *collective.Comm
	e           *am.Engine
	rank, ranks int
	n, chunk    int64
	lo, hi      int64
	g           CSR

	edges, visits, values    inbox
	idEdge, idVisit, idValue am.ID

	parent []int64
	level  []int32

	tk *tasks // the Tasks implementation's runtime; nil for Loops
}

// inbox holds the batches that handlers received, for the rank's own
// goroutine to apply: handlers never touch vertex data, so the search
// needs no atomics. It counts the pairs it received from other ranks
// and this rank's senders count the pairs they sent, so that deliver
// knows when a phase's last pair has arrived.
type inbox struct {
	lo, hi, n int64 // a pair's first vertex is homed here, its second any vertex
	values    bool  // or its second is any 32 bits (half of a value)

	mu      sync.Mutex
	batches [][]uint32
	got     int64         // pairs received from other ranks, ever
	sent    []int64       // pairs sent to each rank through this inbox's handler, ever
	arrived chan struct{} // a token after each received batch
}

func (b *inbox) handler(_ context.Context, _ int, args []byte) ([]byte, error) {
	if len(args)%8 != 0 {
		return nil, fmt.Errorf("%w: batch of %d bytes, not whole pairs", ErrBadGraph, len(args))
	}
	pairs := make([]uint32, len(args)/4)
	for i := range pairs {
		pairs[i] = binary.LittleEndian.Uint32(args[4*i:])
	}
	for i := 0; i < len(pairs); i += 2 {
		if v, w := int64(pairs[i]), int64(pairs[i+1]); v < b.lo || v >= b.hi || (w >= b.n && !b.values) {
			return nil, fmt.Errorf("%w: pair (%d, %d) sent to the home of [%d, %d) in a graph of %d vertices",
				ErrBadGraph, v, w, b.lo, b.hi, b.n)
		}
	}
	b.mu.Lock()
	b.batches = append(b.batches, pairs)
	b.got += int64(len(pairs) / 2)
	b.mu.Unlock()
	select {
	case b.arrived <- struct{}{}:
	default:
	}
	return nil, nil
}

func (b *inbox) put(pairs []uint32) {
	b.mu.Lock()
	b.batches = append(b.batches, pairs)
	b.mu.Unlock()
}

// posted records pairs sent to rank.
func (b *inbox) posted(rank int, pairs int64) {
	b.mu.Lock()
	b.sent[rank] += pairs
	b.mu.Unlock()
}

// take empties the inbox.
func (b *inbox) take() [][]uint32 {
	b.mu.Lock()
	defer b.mu.Unlock()
	t := b.batches
	b.batches = nil
	return t
}

// await returns once want pairs in all have come from other ranks.
func (b *inbox) await(ctx context.Context, want int64) error {
	for {
		b.mu.Lock()
		got := b.got
		b.mu.Unlock()
		if got >= want {
			return nil
		}
		select {
		case <-b.arrived:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// NewDist makes this rank's part of a graph of n vertices over w, with
// its own am engine; c is the job's collective communicator.
func NewDist(ctx context.Context, w *comm.World, c *collective.Comm, n int64, cfg DistConfig) (*Dist, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	d := &Dist{cfg: cfg.withDefaults(w.Size()), c: c, rank: w.Rank(), ranks: w.Size(), n: n}
	d.chunk = ((n+int64(d.ranks)-1)/int64(d.ranks) + 63) / 64 * 64
	d.lo, d.hi = min(n, int64(d.rank)*d.chunk), min(n, int64(d.rank+1)*d.chunk)
	for _, b := range []*inbox{&d.edges, &d.visits, &d.values} {
		b.lo, b.hi, b.n = d.lo, d.hi, n
		b.sent, b.arrived = make([]int64, d.ranks), make(chan struct{}, 1)
	}
	d.values.values = true
	var reg am.Registry
	if err := d.register(&reg); err != nil {
		return nil, err
	}
	if err := d.startEngine(ctx, w, &reg); err != nil {
		return nil, err
	}
	return d, nil
}

// register registers the Dist's handlers in reg, and the Tasks
// implementation's heap and pool when it has one.
func (d *Dist) register(reg *am.Registry) error {
	var err error
	for _, h := range []struct {
		id   *am.ID
		name string
		f    am.Handler
	}{{&d.idEdge, "graph.edges", d.edges.handler}, {&d.idVisit, "graph.visit", d.visits.handler},
		{&d.idValue, "graph.value", d.values.handler}} {
		if *h.id, err = reg.Register(h.name, h.f); err != nil {
			return err
		}
	}
	if d.cfg.Impl == Tasks {
		d.tk, err = newTasks(d, reg)
	}
	return err
}

// startEngine makes the rank's am engine over reg and binds the Tasks
// implementation's heap and pool to it.
func (d *Dist) startEngine(ctx context.Context, w *comm.World, reg *am.Registry) error {
	var err error
	if d.e, err = am.New(ctx, w, reg, d.cfg.AM); err != nil {
		return err
	}
	if d.tk != nil {
		if err := d.tk.bind(ctx, d.e); err != nil {
			d.tk.pool.Close(ctx)
			d.e.Close(ctx)
			return err
		}
	}
	return nil
}

// Close stops the rank's engine once every rank is done with it.
func (d *Dist) Close(ctx context.Context) error {
	err := d.c.Barrier(ctx)
	if d.tk != nil {
		if cerr := d.tk.pool.Close(ctx); err == nil {
			err = cerr
		}
	}
	if err != nil {
		d.e.Close(ctx)
		return err
	}
	return d.e.Close(ctx)
}

// Home returns the rank that holds vertex v.
func (d *Dist) Home(v int64) int { return int(v / d.chunk) }

// Local returns the vertices [lo, hi) homed on this rank.
func (d *Dist) Local() (lo, hi int64) { return d.lo, d.hi }

// Graph returns this rank's adjacency lists.
func (d *Dist) Graph() *CSR { return &d.g }

// deliver returns once every pair that any rank sent through b's
// handler has arrived here: the ranks sum their counts of pairs sent to
// each rank, and this rank waits for its total. A phase's pairs must
// not mix with the next phase's; callers ensure that no rank sends the
// next phase's pairs before every rank has delivered this one (a
// collective in between).
func (d *Dist) deliver(ctx context.Context, b *inbox) error {
	if err := d.e.Flush(ctx); err != nil {
		return fmt.Errorf("graph: flush: %w", err)
	}
	b.mu.Lock()
	sums := append([]int64(nil), b.sent...)
	b.mu.Unlock()
	if err := collectiveSum(ctx, d, sums); err != nil {
		return err
	}
	if err := b.await(ctx, sums[d.rank]); err != nil {
		return fmt.Errorf("graph: awaiting %d pairs: %w", sums[d.rank], err)
	}
	return nil
}
