package pgas

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/am"
)

// DefaultHeapBytes is the heap of each rank when Config.HeapBytes is 0.
const DefaultHeapBytes = 16 << 20

// MaxHeapBytes is the largest heap of a rank that Config.Validate
// accepts: more memory than one host has, so that a size past it is a
// mistake reported as one rather than a failed allocation.
const MaxHeapBytes = 1 << 40

// DefaultCacheChunk is the heap bytes of one message of a cache when
// Config.CacheChunk is 0: half of am's default MaxArgs, so that the
// default engine carries it with room to spare.
const DefaultCacheChunk = am.DefaultMaxArgs / 2

// Config sizes a heap. Every rank must use the same Config.
type Config struct {
	// HeapBytes is the heap of each rank, a multiple of Block and at
	// most MaxHeapBytes. 0 means DefaultHeapBytes.
	HeapBytes int64
	// Block is the bytes of a block of the striped linear heap; an
	// element never straddles two blocks.
	Block int64
	// CacheChunk is the most heap bytes that one message of Acquire or
	// Release carries, at least Block; it must stay under the am
	// engine's MaxArgs less 8 bytes, or Acquire and Release fail with
	// am's too-large error. 0 means DefaultCacheChunk (or Block when that
	// is larger).
	CacheChunk int64
}

func (c Config) withDefaults() Config {
	if c.HeapBytes == 0 {
		c.HeapBytes = DefaultHeapBytes
	}
	if c.Block == 0 {
		c.Block = DefaultBlock
	}
	if c.CacheChunk == 0 {
		c.CacheChunk = max(DefaultCacheChunk, c.Block)
	}
	return c
}

// Validate reports what is wrong with c, after defaults.
func (c Config) Validate() error {
	c = c.withDefaults()
	if c.HeapBytes < 0 || c.Block <= 0 || c.HeapBytes%c.Block != 0 {
		return fmt.Errorf("%w: heap of %d bytes in blocks of %d", ErrBadSize, c.HeapBytes, c.Block)
	}
	if c.HeapBytes > MaxHeapBytes {
		return fmt.Errorf("%w: heap of %d bytes, more than pgas.MaxHeapBytes = %d", ErrBadSize, c.HeapBytes, int64(MaxHeapBytes))
	}
	if c.CacheChunk < c.Block {
		return fmt.Errorf("%w: cache chunk of %d bytes, less than a block of %d", ErrBadSize, c.CacheChunk, c.Block)
	}
	return nil
}

// Heap is one rank's part of the global heap and the delegates that
// reach the others.
//
// Concurrency contract: delegates (the methods of Ptr) may be called
// from any number of goroutines and handlers at once. Alloc and Free are
// collective and are called by one goroutine per rank, in the same order
// on every rank.
type Heap struct {
	cfg   Config
	reg   *am.Registry
	ops   [nops]am.ID
	hs    [nops]am.Handler // the home side of each op, also run locally
	funcs []am.Handler     // the home side of each Func, in registration order
	e     *am.Engine
	lay   Layout

	// mu serialises every delegate at this rank that is not on a word
	// (word.go), whatever its address: that is what makes each one atomic
	// with respect to the others. Delegates on words use atomic
	// instructions instead. It also guards the allocator.
	mu      sync.Mutex
	mem     []byte // aligned to 8 bytes (heapWords)
	alloc   *allocator
	adds    []localAdd   // Adds here, from any rank, not applied yet (localadds.go)
	pending atomic.Int32 // len(adds), for the word path's check without mu (W2)
}

// New makes a rank's heap and registers its delegates' handlers in reg,
// which must then go to am.New; Bind gives the heap that engine. Every
// rank calls New, and RegisterFunc, in the same order.
func New(reg *am.Registry, cfg Config) (*Heap, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	// The memory exists before the engine: other ranks may send
	// delegates as soon as their am.New returns, before this Bind.
	h := &Heap{cfg: cfg, reg: reg, mem: heapWords(cfg.HeapBytes), alloc: newAllocator(cfg.HeapBytes)}
	adviseHuge(h.mem)
	h.hs = h.handlers()
	for op, f := range h.hs {
		id, err := reg.Register(opNames[op], f)
		if err != nil {
			return nil, err
		}
		h.ops[op] = id
	}
	return h, nil
}

// Bind makes e, built over the registry given to New, the engine that
// carries this heap's delegates.
func (h *Heap) Bind(e *am.Engine) error {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.e != nil {
		return fmt.Errorf("%w: Bind called twice", ErrBound)
	}
	h.e = e
	h.lay = Layout{Block: h.cfg.Block, Ranks: e.Size()}
	return nil
}

// Layout returns the striping of the linear heap.
func (h *Heap) Layout() Layout { return h.lay }

// Rank returns this rank, or -1 before Bind.
func (h *Heap) Rank() int {
	if h.e == nil {
		return -1
	}
	return h.e.Rank()
}

func (h *Heap) bound() error {
	if h.e == nil {
		return ErrBound
	}
	return nil
}

// Quiet returns once every Add that this rank's goroutines made before
// it has been applied at its home: it calls every rank, and a Call runs
// after the Posts sent before it.
func (h *Heap) Quiet(ctx context.Context) error {
	if err := h.bound(); err != nil {
		return err
	}
	h.lock() // this rank's own Adds, applied here
	h.mu.Unlock()
	errs := make(chan error, h.e.Size())
	for r := range h.e.Size() {
		go func() {
			_, err := h.e.Call(ctx, r, h.ops[opFence], nil)
			errs <- wrapOp(err, "quiet", Addr{Rank: r})
		}()
	}
	var first error
	for range h.e.Size() {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}
