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

// slabRequests is the number of requests per slab.
const slabRequests = 64

// reqSlab is a block of requests handed out in order; next counts those
// handed out (it may overshoot slabRequests: the slab is then spent).
type reqSlab struct {
	next atomic.Int32
	reqs [slabRequests]Request
}

// slabs hands out requests, freed ones (free.go) first; any goroutine may
// call alloc.
type slabs struct {
	cur  atomic.Pointer[reqSlab]
	free sync.Pool // of *Request in stateFreed
}

// alloc returns a zeroed request.
func (s *slabs) alloc() *Request {
	if r, _ := s.free.Get().(*Request); r != nil {
		r.state.Store(statePending)
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
