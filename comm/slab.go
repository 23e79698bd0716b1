package comm

import (
	"sync"
	"sync/atomic"
)

// Requests returned by Isend and Irecv belong to the caller, who may keep
// them as long as it likes, so they cannot be pooled; but allocating each
// on its own costs a message-rate benchmark a fifth of its time (the
// allocation and the collector's work for it). So the world carves them
// out of slabs of slabRequests: one allocation per slab. A slab lives as
// long as any of its requests is referenced, which bounds the memory a
// kept request can hold on to at one slab (about 16 KiB).
//
// Freed requests (Free) are reused first. They go to a stack of at
// most stackRequests under a mutex that is only ever tried, never waited
// for: Free pushes a whole batch under one lock and alloc pops one, two
// uncontended locked instructions, where a sync.Pool Get or Put costs
// about twice that (BenchmarkReceivePath). When the stack is busy (another
// goroutine holds it) or full, requests go to and come from a sync.Pool,
// which scales with many goroutines; so no goroutine ever waits here.

const (
	// slabRequests is the number of requests per slab.
	slabRequests = 64
	// stackRequests bounds the freed requests kept on the stack; beyond
	// it they go to the sync.Pool, which the collector may empty.
	stackRequests = 4096
)

// reqSlab is a block of requests handed out in order; next counts those
// handed out (it may overshoot slabRequests: the slab is then spent).
type reqSlab struct {
	next atomic.Int32
	reqs [slabRequests]Request
}

// slabs hands out requests, freed ones first; any goroutine may call
// alloc and put.
//
// Concurrency contract: stack is touched only by a goroutine that holds
// mu, which is taken with TryLock only.
type slabs struct {
	cur    atomic.Pointer[reqSlab]
	serial bool // a serialized world's: mu is not taken (World.adoptSerial)
	mu     sync.Mutex
	stack  []*Request // freed requests (reset)
	pool   sync.Pool  // of freed requests, when stack was busy or full
}

// alloc returns a zeroed request.
func (s *slabs) alloc() *Request {
	if r := s.pop(); r != nil {
		r.freed = false
		return r
	}
	if r, _ := s.pool.Get().(*Request); r != nil {
		r.freed = false
		return r
	}
	for {
		cur := s.cur.Load()
		if cur != nil {
			if i := cur.next.Add(1) - 1; i < slabRequests {
				return &cur.reqs[i]
			}
		}
		fresh := new(reqSlab)
		fresh.next.Store(1)
		if s.cur.CompareAndSwap(cur, fresh) {
			return &fresh.reqs[0]
		}
	}
}

// pop takes a freed request off the stack, or returns nil if the stack
// is empty or busy.
func (s *slabs) pop() *Request {
	if !s.lock() {
		return nil
	}
	var r *Request
	if n := len(s.stack); n > 0 {
		r, s.stack[n-1] = s.stack[n-1], nil
		s.stack = s.stack[:n-1]
	}
	s.unlock()
	return r
}

// lock tries mu, unless the world is serialized: its one caller at a
// time needs no lock.
func (s *slabs) lock() bool { return s.serial || s.mu.TryLock() }

func (s *slabs) unlock() {
	if !s.serial {
		s.mu.Unlock()
	}
}

// put keeps freed requests for reuse: as many as fit on the stack, if it
// is free, and the rest in the pool.
func (s *slabs) put(reqs []*Request) {
	if s.lock() {
		n := min(len(reqs), stackRequests-len(s.stack))
		s.stack = append(s.stack, reqs[:n]...)
		s.unlock()
		reqs = reqs[n:]
	}
	for _, r := range reqs {
		s.pool.Put(r)
	}
}
