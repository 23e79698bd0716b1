package kv

import "github.com/plexus-hpc/plexus/agree"

// Store is the replicated state: the map, and for every client the
// result of its latest Set, so that a Set decided twice (sent again
// after a failure) is applied once and answered with its first result.
// It is pure; a Server drives it from one goroutine.
type Store struct {
	data    map[string][]byte
	last    map[uint64]Result
	applied uint64
}

// Result is what a Set did: its sequence number, slot and the value it
// replaced.
type Result struct {
	Seq  uint64
	Slot uint64
	Prev []byte
}

// NewStore returns an empty store.
func NewStore() *Store { return &Store{data: map[string][]byte{}, last: map[uint64]Result{}} }

// Get returns key's value (nil if none) and the slot the store applied.
func (s *Store) Get(key []byte) ([]byte, uint64) { return s.data[string(key)], s.applied }

// Applied returns the highest slot applied.
func (s *Store) Applied() uint64 { return s.applied }

// Last returns the result of client's latest applied Set.
func (s *Store) Last(client uint64) (Result, bool) {
	r, ok := s.last[client]
	return r, ok
}

// Apply applies one decided entry and returns the Set it carried (ok
// false for a no-op or bytes that are not a Set). A Set whose sequence
// number the client already used changes nothing.
func (s *Store) Apply(e agree.Entry) (req Request, ok bool) {
	s.applied = e.Slot
	if e.Value == nil {
		return Request{}, false
	}
	req, err := decodeCommand(e.Value)
	if err != nil {
		return Request{}, false
	}
	if r, seen := s.last[req.Client]; seen && r.Seq >= req.Seq {
		return req, true
	}
	prev := s.data[string(req.Key)]
	s.data[string(req.Key)] = req.Value
	s.last[req.Client] = Result{Seq: req.Seq, Slot: e.Slot, Prev: prev}
	return req, true
}
