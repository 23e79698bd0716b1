package agree

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"
)

// sim is a group of replicas on an in-memory network that the tests
// schedule by hand or at random: messages in flight may be delivered in
// any order, dropped or duplicated, and replicas may crash. After every
// step it checks the safety invariants:
//
//	S1 the acceptors of all epochs accept at most one value per slot;
//	S2 a slot learned anywhere has one value, which never changes;
//	S3 every replica hands out slots 1, 2, 3, ... in order, each with
//	   the value of S2 (so all replicas apply the same sequence);
//	S4 every decided value other than a no-op was proposed.
type sim struct {
	t        testing.TB
	nodes    []*Node
	up       []bool
	pool     []Message
	rnd      *rand.Rand
	accepted map[uint64][]byte // S1
	chosen   map[uint64][]byte // S2
	applied  [][]Entry         // S3, per replica
	proposed map[string]bool   // S4
	compact  uint64            // a replica snapshots every compact slots (0: never)
	// handed, when not nil, records the values each replica handed out
	// in Ready.Decided (not those it got by a snapshot).
	handed []map[string]bool
	// mayRestart, when not nil, lets chaos restart replica id with its
	// state lost (up or crashed).
	mayRestart func(id int) bool
	seed       uint64
}

func newSim(t testing.TB, replicas int, seed uint64) *sim {
	s := &sim{t: t, rnd: rand.New(rand.NewPCG(seed, 99)), accepted: map[uint64][]byte{},
		chosen: map[uint64][]byte{}, applied: make([][]Entry, replicas), proposed: map[string]bool{}, seed: seed}
	for id := range replicas {
		n, err := New(Config{ID: id, Replicas: replicas, Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		s.nodes = append(s.nodes, n)
		s.up = append(s.up, true)
	}
	return s
}

// collect takes replica id's Ready: its messages join the pool (one copy
// per receiver for All), its decisions are checked.
func (s *sim) collect(id int) {
	rd := s.nodes[id].Ready()
	for _, m := range rd.Messages {
		if m.Type == Accept {
			s.checkAccept(m)
		}
		if m.To != All {
			s.pool = append(s.pool, m)
			continue
		}
		for to := range s.nodes {
			if to != id {
				c := m
				c.To = to
				s.pool = append(s.pool, c)
			}
		}
	}
	if rd.Snapshot != nil {
		s.checkSnapshot(id, *rd.Snapshot)
	}
	for _, e := range rd.Decided {
		s.checkDecided(id, e)
		if s.handed != nil {
			s.handed[id][string(e.Value)] = true
		}
	}
	s.checkLearned(id)
	s.maybeCompact(id)
}

func (s *sim) checkAccept(m Message) {
	if v, ok := s.accepted[m.Slot]; ok && !sameValue(v, m.Value) {
		s.t.Fatalf("S1: slot %d accepted as %q and as %q (%v)", m.Slot, v, m.Value, m)
	}
	s.accepted[m.Slot] = m.Value
}

func (s *sim) checkDecided(id int, e Entry) {
	want := uint64(len(s.applied[id])) + 1
	if e.Slot != want {
		s.t.Fatalf("S3: replica %d handed out slot %d after %d", id, e.Slot, want-1)
	}
	if v, ok := s.chosen[e.Slot]; ok && !sameValue(v, e.Value) {
		s.t.Fatalf("S3: replica %d applied %q in slot %d, chosen was %q", id, e.Value, e.Slot, v)
	}
	if e.Value != nil && !s.proposed[string(e.Value)] {
		s.t.Fatalf("S4: replica %d decided %q, never proposed", id, e.Value)
	}
	s.applied[id] = append(s.applied[id], e)
}

func (s *sim) checkLearned(id int) {
	s.nodes[id].learned.each(func(slot uint64, v *[]byte) {
		if c, ok := s.chosen[slot]; ok && !sameValue(c, *v) {
			s.t.Fatalf("S2: replica %d learned %q in slot %d, chosen was %q", id, *v, slot, c)
		}
		s.chosen[slot] = *v
	})
}

func sameValue(a, b []byte) bool { return (a == nil) == (b == nil) && bytes.Equal(a, b) }

func (s *sim) propose(id int, v string) {
	s.proposed[v] = true
	if err := s.nodes[id].Propose([]byte(v)); err != nil {
		s.t.Fatal(err)
	}
	s.collect(id)
}

func (s *sim) tick(id int) {
	s.nodes[id].Tick()
	s.collect(id)
}

// deliver hands the i-th message of the pool to its receiver (a crashed
// one loses it) and removes it from the pool.
func (s *sim) deliver(i int) {
	m := s.pool[i]
	s.pool = append(s.pool[:i], s.pool[i+1:]...)
	if !s.up[m.To] {
		return
	}
	if err := s.nodes[m.To].Step(m); err != nil {
		s.t.Fatalf("step %v: %v", m, err)
	}
	s.collect(m.To)
}

// settle delivers everything and ticks the live replicas, round after
// round, for at most rounds rounds or until done reports true.
func (s *sim) settle(rounds int, done func() bool) bool {
	for range rounds {
		if done() {
			return true
		}
		for len(s.pool) > 0 {
			s.deliver(s.rnd.IntN(len(s.pool)))
		}
		for id := range s.nodes {
			if s.up[id] {
				s.tick(id)
			}
		}
	}
	return done()
}

// allDecided reports whether every live replica applied every value in vs.
func (s *sim) allDecided(vs []string) func() bool {
	return func() bool {
		for id, up := range s.up {
			if up && !s.hasAll(id, vs) {
				return false
			}
		}
		return true
	}
}

func (s *sim) hasAll(id int, vs []string) bool {
	have := map[string]bool{}
	for _, e := range s.applied[id] {
		have[string(e.Value)] = true
	}
	for _, v := range vs {
		if !have[v] {
			return false
		}
	}
	return true
}

func (s *sim) crash(id int) { s.up[id] = false }

func (s *sim) String() string {
	var b bytes.Buffer
	for id, n := range s.nodes {
		fmt.Fprintf(&b, "replica %d up=%v %+v\n", id, s.up[id], n.Status())
	}
	return b.String()
}
