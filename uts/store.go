package uts

import (
	"sync"
	"sync/atomic"
)

// A Ptr is a global pointer to a stored node: its home rank and its
// index in that rank's store.
type Ptr uint64

const (
	idxBits = 40
	noPtr   = ^Ptr(0) // the root's parent slot: none
)

func makePtr(rank int, idx int64) Ptr { return Ptr(uint64(rank)<<idxBits | uint64(idx)) }

// Rank returns p's home rank.
func (p Ptr) Rank() int { return int(p >> idxBits) }

func (p Ptr) index() int64 { return int64(p & (1<<idxBits - 1)) }

// record is a stored node: its height and its children, which are the
// global pointers kids[first : first+n] of the same rank's store.
type record struct {
	height int32
	n      int32
	first  int64
}

const (
	chunkBits = 16
	chunkLen  = 1 << chunkBits
	maxChunks = 1 << 13 // 2^29 records and as many children per rank
)

// store is one rank's part of the tree: records and child pointers in
// chunks that never move, so that a task may fill the entries it
// allocated while others allocate more.
//
// Concurrency contract: alloc may be called by any goroutine. Each
// allocated record and child slot has one writer (the task that
// allocated it, or the link handler for a slot whose child was built on
// another rank); readers come after the build's group has finished and
// every rank has passed a barrier, which orders them after the writes.
type store struct {
	mu         sync.Mutex // guards the counts and the creation of chunks
	nrec, nkid int64
	recs       [maxChunks]atomic.Pointer[[chunkLen]record]
	kids       [maxChunks]atomic.Pointer[[chunkLen]Ptr]
}

// alloc reserves one record and k child slots and returns their
// indices; ok is false when the store is full.
func (s *store) alloc(k int) (idx, first int64, ok bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	idx, first = s.nrec, s.nkid
	if (idx+1+chunkLen-1)>>chunkBits > maxChunks || (first+int64(k)+chunkLen-1)>>chunkBits > maxChunks {
		return 0, 0, false
	}
	s.nrec++
	s.nkid += int64(k)
	grow(&s.recs, idx, s.nrec)
	grow(&s.kids, first, s.nkid)
	return idx, first, true
}

// grow makes the chunks that hold entries [from, to) exist; the caller
// holds mu.
func grow[T any](chunks *[maxChunks]atomic.Pointer[[chunkLen]T], from, to int64) {
	for c := from >> chunkBits; c<<chunkBits < to; c++ {
		if chunks[c].Load() == nil {
			chunks[c].Store(new([chunkLen]T))
		}
	}
}

func (s *store) rec(i int64) *record { return &s.recs[i>>chunkBits].Load()[i&(chunkLen-1)] }

func (s *store) kid(i int64) *Ptr { return &s.kids[i>>chunkBits].Load()[i&(chunkLen-1)] }

// len returns the records stored.
func (s *store) len() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.nrec
}
