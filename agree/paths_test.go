package agree

import (
	"fmt"
	"reflect"
	"testing"
)

// TestDeterministic runs the same random schedule twice: the replicas
// must send the same messages and decide the same entries.
func TestDeterministic(t *testing.T) {
	trace := func() []string {
		s := newSim(t, 5, 42)
		s.chaos(1500, func(int) bool { return s.downCount() < 2 && s.stable() })
		var out []string
		for id, n := range s.nodes {
			out = append(out, fmt.Sprintf("%d %+v %d", id, n.Status(), len(s.applied[id])))
		}
		for _, m := range s.pool {
			out = append(out, m.String())
		}
		return out
	}
	if a, b := trace(), trace(); !reflect.DeepEqual(a, b) {
		t.Errorf("two runs differ:\n%v\n%v", a, b)
	}
}

// TestCatchUp drops every accept bound for replica 2: it learns that
// slots exist from the acceptor's heartbeats and fetches them.
func TestCatchUp(t *testing.T) {
	s := newSim(t, 3, 2)
	vs := []string{"a", "b", "c"}
	for _, v := range vs {
		s.propose(0, v)
	}
	for round := 0; round < 50 && !s.allDecided(vs)(); round++ {
		for len(s.pool) > 0 {
			if m := s.pool[0]; m.Type == Accept && m.To == 2 {
				s.pool = s.pool[1:]
				continue
			}
			s.deliver(0)
		}
		for id := range s.nodes {
			s.tick(id)
		}
	}
	if !s.hasAll(2, vs) {
		t.Fatalf("replica 2 did not catch up: %+v", s.nodes[2].Status())
	}
}

// TestReportStartsReconfig: a reported acceptor is replaced at the next
// tick, not after the election timeout.
func TestReportStartsReconfig(t *testing.T) {
	s := newSim(t, 3, 3)
	s.nodes[0].Report(1)
	s.tick(0)
	var prepares int
	for _, m := range s.pool {
		if m.Type == Prepare && m.From == 0 && m.Epoch == 2 {
			prepares++
		}
	}
	if prepares != 2 {
		t.Fatalf("%d Prepares for epoch 2 after one tick, want one to each other replica", prepares)
	}
}

// TestLaggardLearnsView: a replica that missed a reconfiguration learns
// the new view from the new leader's heartbeat and then decides what
// the others decide.
func TestLaggardLearnsView(t *testing.T) {
	s := newSim(t, 5, 4)
	s.crash(1)
	s.crash(4) // the laggard: it is back below
	if !s.settle(200, func() bool { return s.nodes[0].Status().Epoch == 2 }) {
		t.Fatalf("no reconfiguration:\n%v", s)
	}
	s.up[4] = true
	s.propose(0, "after")
	if !s.settle(200, s.allDecided([]string{"after"})) || s.nodes[4].Status().Epoch != 2 {
		t.Fatalf("laggard did not follow:\n%v", s)
	}
}
