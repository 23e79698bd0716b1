package agree

import (
	"errors"
	"fmt"
	"testing"
)

func TestNormalCase(t *testing.T) {
	for _, replicas := range []int{1, 2, 3, 5, 8} {
		t.Run(fmt.Sprintf("replicas=%d", replicas), func(t *testing.T) {
			s := newSim(t, replicas, 1)
			var vs []string
			for i := range 20 {
				v := fmt.Sprintf("v%d", i)
				vs = append(vs, v)
				s.propose(i%replicas, v)
			}
			if !s.settle(50, s.allDecided(vs)) {
				t.Fatalf("not all decided:\n%v", s)
			}
			for id := range s.nodes {
				if st := s.nodes[id].Status(); st.Epoch != 1 || st.Applied != 20 || st.Pending != 0 {
					t.Errorf("replica %d: %+v, want epoch 1, 20 applied, none pending", id, st)
				}
			}
		})
	}
}

// TestOneBroadcastDecides follows one value through the normal case:
// forward to the leader, propose to the acceptor, one Accept to All.
func TestOneBroadcastDecides(t *testing.T) {
	s := newSim(t, 3, 1)
	s.propose(2, "x")
	var types []Type
	for len(s.pool) > 0 {
		types = append(types, s.pool[0].Type)
		s.deliver(0)
	}
	want := []Type{Forward, Propose, Accept, Accept}
	if fmt.Sprint(types) != fmt.Sprint(want) {
		t.Errorf("messages %v, want %v", types, want)
	}
	for id := range s.nodes {
		if !s.hasAll(id, []string{"x"}) {
			t.Errorf("replica %d did not decide x", id)
		}
	}
}

// TestFailover crashes the leader or the acceptor (or another replica)
// with requests in flight: the survivors agree on a new view and decide
// every request.
func TestFailover(t *testing.T) {
	for _, tc := range []struct {
		name            string
		replicas, crash int
		newRole         func(Status) bool
	}{
		{"leader", 3, 0, func(st Status) bool { return st.Leader != 0 }},
		{"acceptor", 3, 1, func(st Status) bool { return st.Acceptor != 1 && st.Leader == 0 }},
		{"replica", 3, 2, func(st Status) bool { return st.Epoch == 1 }},
		{"leader of 5", 5, 0, func(st Status) bool { return st.Leader != 0 }},
		{"acceptor of 5", 5, 1, func(st Status) bool { return st.Acceptor != 1 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, tc.replicas, 7)
			vs := []string{"a", "b", "c"}
			for i, v := range vs {
				s.propose((tc.crash+1+i)%tc.replicas, v)
			}
			s.crash(tc.crash)
			if !s.settle(200, s.allDecided(vs)) {
				t.Fatalf("not all decided:\n%v", s)
			}
			for id, n := range s.nodes {
				if s.up[id] && !tc.newRole(n.Status()) {
					t.Errorf("replica %d: %+v", id, n.Status())
				}
			}
		})
	}
}

// TestAcceptReachedOne: the acceptor's broadcast reaches one replica,
// which applies the value, and the acceptor dies. The new view must keep
// the value in its slot (it comes from the leader's seal).
func TestAcceptReachedOne(t *testing.T) {
	s := newSim(t, 5, 3)
	s.propose(0, "kept")
	s.deliver(0) // Propose to the acceptor, which accepts and broadcasts
	for i := len(s.pool) - 1; i >= 0; i-- {
		if s.pool[i].To != 4 {
			s.pool = append(s.pool[:i], s.pool[i+1:]...)
		}
	}
	s.deliver(0)
	s.crash(1)
	if len(s.applied[4]) != 1 {
		t.Fatalf("replica 4 applied %v, want the one value", s.applied[4])
	}
	s.propose(2, "next")
	if !s.settle(200, s.allDecided([]string{"kept", "next"})) {
		t.Fatalf("not all decided:\n%v", s)
	}
	for id := range s.nodes {
		if s.up[id] && string(s.applied[id][0].Value) != "kept" {
			t.Errorf("replica %d slot 1 is %q", id, s.applied[id][0].Value)
		}
	}
}

// TestLeaderDiesBeforeAccept: the leader proposes and dies before the
// acceptor sees the proposal. The acceptor's seal has nothing in that
// slot; the request survives because its replica sends it again.
func TestLeaderDiesBeforeAccept(t *testing.T) {
	s := newSim(t, 3, 5)
	s.propose(2, "r")
	s.deliver(0) // Forward reaches the leader, which proposes
	s.pool = nil // the proposal is lost with the leader
	s.crash(0)
	if !s.settle(200, s.allDecided([]string{"r"})) {
		t.Fatalf("not decided:\n%v", s)
	}
}

// TestMajorityLost: with a majority down nothing is decided, and the
// survivor keeps trying (its value stays pending) rather than deciding
// alone.
func TestMajorityLost(t *testing.T) {
	s := newSim(t, 3, 11)
	s.crash(0)
	s.crash(1)
	s.propose(2, "lonely")
	s.settle(300, func() bool { return false })
	if n := len(s.applied[2]); n != 0 {
		t.Fatalf("replica 2 decided %d entries without a majority", n)
	}
	if st := s.nodes[2].Status(); st.Pending != 1 || st.Epoch != 1 {
		t.Errorf("replica 2: %+v, want epoch 1 and its value pending", st)
	}
}

// TestLeaderAndAcceptorLost: 1Paxos's limit — with both of an epoch's
// leader and acceptor gone no seal exists, so the majority that is left
// must not decide (it cannot know what the acceptor accepted).
func TestLeaderAndAcceptorLost(t *testing.T) {
	s := newSim(t, 5, 13)
	s.crash(0)
	s.crash(1)
	s.propose(3, "stuck")
	s.settle(300, func() bool { return false })
	for id := 2; id < 5; id++ {
		if len(s.applied[id]) != 0 || s.nodes[id].Status().Epoch != 1 {
			t.Errorf("replica %d: %+v, applied %d", id, s.nodes[id].Status(), len(s.applied[id]))
		}
	}
}

func TestBadInput(t *testing.T) {
	n, err := New(Config{ID: 0, Replicas: 3})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Message{
		{Type: 0, From: 1, To: 0},
		{Type: maxType, From: 1, To: 0},
		{Type: Accept, From: 3, To: 0},
		{Type: Accept, From: -2, To: 0},
		{Type: Accept, From: 1, To: 2},
		{Type: Decide, From: 1, To: 0, View: &View{Epoch: 2, Leader: 5}},
		{Type: Decide, From: 1, To: 0, View: &View{Epoch: 2, Base: 2, Log: []Entry{{Slot: 1}}}},
	} {
		if err := n.Step(m); !errors.Is(err, ErrMessage) {
			t.Errorf("Step(%v) = %v, want ErrMessage", m, err)
		}
	}
	if err := n.Propose(nil); !errors.Is(err, ErrEmpty) {
		t.Errorf("Propose(nil) = %v, want ErrEmpty", err)
	}
	for _, c := range []Config{{ID: 0}, {ID: 3, Replicas: 3}, {ID: -1, Replicas: 3}, {Replicas: 3, HeartbeatTicks: 5, ElectionTicks: 5}} {
		if _, err := New(c); !errors.Is(err, ErrConfig) {
			t.Errorf("New(%+v) = %v, want ErrConfig", c, err)
		}
	}
}
