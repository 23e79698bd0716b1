package agree

import (
	"errors"
	"fmt"
	"testing"
)

// TestCompactBoundsMemory runs a long load with compaction every 16
// slots: what a replica holds stays below a bound however many slots
// are decided.
func TestCompactBoundsMemory(t *testing.T) {
	s := newSim(t, 3, 11)
	s.compact = 16
	var vs []string
	for i := range 600 {
		v := fmt.Sprintf("v%d", i)
		vs = append(vs, v)
		s.propose(i%3, v)
		if i%10 == 9 {
			s.settle(3, func() bool { return false })
			for id, n := range s.nodes {
				if st := n.Status(); st.Held > 64 {
					t.Fatalf("replica %d holds %d entries after %d proposals: %+v", id, st.Held, i+1, st)
				}
			}
		}
	}
	if !s.settle(50, s.allDecided(vs)) {
		t.Fatalf("not all decided:\n%v", s)
	}
	if st := s.nodes[0].Status(); st.Compacted < 500 {
		t.Errorf("replica 0 compacted at %d after 600 slots", st.Compacted)
	}
}

func TestCompactRefusesBadIndex(t *testing.T) {
	s := newSim(t, 3, 1)
	s.propose(0, "a")
	s.settle(10, s.allDecided([]string{"a"}))
	n := s.nodes[0]
	for _, idx := range []uint64{0, 2} {
		if err := n.Compact(idx, nil); !errors.Is(err, ErrCompact) {
			t.Errorf("Compact(%d) after 1 applied: %v, want ErrCompact", idx, err)
		}
	}
	if err := n.Compact(1, encodeApplied(s.applied[0])); err != nil {
		t.Fatal(err)
	}
	if err := n.Compact(1, nil); !errors.Is(err, ErrCompact) {
		t.Errorf("second Compact(1): %v, want ErrCompact", err)
	}
}

// TestLaggardGetsSnapshot: replica 2 misses every accept while the
// others compact; it catches up from a snapshot and the log after it.
func TestLaggardGetsSnapshot(t *testing.T) {
	s := newSim(t, 3, 5)
	s.compact = 8
	var vs []string
	for i := range 40 {
		vs = append(vs, fmt.Sprintf("v%d", i))
		s.propose(i%2, vs[i])
	}
	for round := 0; round < 10; round++ {
		for len(s.pool) > 0 {
			if m := s.pool[0]; m.To == 2 {
				s.pool = s.pool[1:]
				continue
			}
			s.deliver(0)
		}
		s.tick(0)
		s.tick(1)
	}
	if s.nodes[0].Status().Compacted == 0 || len(s.applied[2]) != 0 {
		t.Fatalf("setup: %v", s)
	}
	if !s.settle(50, s.allDecided(vs)) {
		t.Fatalf("replica 2 did not catch up:\n%v", s)
	}
	if st := s.nodes[2].Status(); st.Compacted == 0 {
		t.Errorf("replica 2 caught up without a snapshot: %+v", st)
	}
}

// TestRestartRoles restarts each replica of a group with its state lost,
// under load: it recovers, catches up and applies what the others
// applied, and a restarted leader or acceptor is replaced rather than
// resumed.
func TestRestartRoles(t *testing.T) {
	for _, tc := range []struct {
		name              string
		replicas, restart int
		compact           uint64
	}{
		{"leader", 3, 0, 0}, {"acceptor", 3, 1, 0}, {"replica", 3, 2, 0},
		{"acceptor/compact", 3, 1, 4}, {"leader of 5/compact", 5, 0, 4}, {"replica of 4/compact", 4, 3, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSim(t, tc.replicas, 9)
			s.compact = tc.compact
			var vs []string
			for i := range 20 {
				vs = append(vs, fmt.Sprintf("a%d", i))
				s.propose((tc.restart+1+i)%tc.replicas, vs[i])
			}
			s.settle(100, s.allDecided(vs))
			s.restart(tc.restart)
			if st := s.nodes[tc.restart].Status(); !st.Recovering {
				t.Errorf("restarted replica not recovering: %+v", st)
			}
			for i := range 20 {
				vs = append(vs, fmt.Sprintf("b%d", i))
				s.propose((tc.restart+1+i)%tc.replicas, vs[len(vs)-1])
			}
			if !s.settle(400, s.allDecided(vs)) {
				t.Fatalf("not all decided:\n%v", s)
			}
			st := s.nodes[tc.restart].Status()
			if st.Recovering || (tc.restart < 2 && st.Epoch == 1) {
				t.Errorf("restarted replica %+v: want recovered, and a new epoch if it had a role", st)
			}
		})
	}
}

// TestRandomRestarts is TestRandomSchedules with compaction and with
// replicas that restart with their state lost: safety after every step,
// then every value proposed at a live replica since its last restart is
// decided everywhere.
func TestRandomRestarts(t *testing.T) {
	seeds, steps := 120, 3000
	if testing.Short() {
		seeds, steps = 30, 1500
	}
	for seed := range uint64(seeds) {
		replicas := []int{3, 4, 5}[seed%3]
		t.Run(fmt.Sprintf("seed=%d/replicas=%d", seed, replicas), func(t *testing.T) {
			s := newSim(t, replicas, seed+500)
			s.compact = []uint64{0, 3, 10}[seed%3]
			calm := func() bool { return s.downCount() == 0 && s.stable() && !s.recovering() }
			s.mayRestart = func(int) bool { return calm() }
			minority := (replicas - 1) / 2
			props := s.chaos(steps, func(int) bool { return s.downCount() < minority && s.stable() && !s.recovering() })
			var want []string
			for id, vs := range props {
				if s.up[id] {
					want = append(want, vs...)
				}
			}
			if !s.settle(3000, s.allDecided(want)) {
				t.Fatalf("live replicas did not decide all %d values:\n%v", len(want), s)
			}
		})
	}
}

// TestRandomRestartSafety restarts and crashes any replica at any time,
// with compaction: progress may stop, the invariants hold at every step.
func TestRandomRestartSafety(t *testing.T) {
	seeds, steps := 120, 3000
	if testing.Short() {
		seeds, steps = 30, 1500
	}
	for seed := range uint64(seeds) {
		replicas := []int{3, 5}[seed%2]
		t.Run(fmt.Sprintf("seed=%d/replicas=%d", seed, replicas), func(t *testing.T) {
			s := newSim(t, replicas, seed+2000)
			s.compact = []uint64{0, 2, 7}[seed%3]
			s.mayRestart = func(int) bool { return true }
			s.chaos(steps, func(int) bool { return s.downCount() < replicas-1 })
			s.settle(500, func() bool { return false })
		})
	}
}

// TestDeterministicRestarts: schedules with compaction and restarts are
// as reproducible as the others.
func TestDeterministicRestarts(t *testing.T) {
	trace := func() []string {
		s := newSim(t, 3, 77)
		s.compact = 5
		restarts := 0
		s.mayRestart = func(int) bool {
			ok := s.downCount() == 0 && s.stable() && !s.recovering()
			if ok {
				restarts++
			}
			return ok
		}
		s.chaos(1500, func(int) bool { return false })
		out := []string{fmt.Sprint(restarts, " restarts")}
		if restarts == 0 {
			t.Fatal("no restart in the schedule")
		}
		for id, n := range s.nodes {
			out = append(out, fmt.Sprintf("%d %+v %d", id, n.Status(), len(s.applied[id])))
		}
		for _, m := range s.pool {
			out = append(out, m.String())
		}
		return out
	}
	if a, b := trace(), trace(); fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("two runs differ:\n%v\n%v", a, b)
	}
}

// TestLongCatchUp: replica 2 misses 2000 slots (no compaction, batches
// of 256): it catches up in a few rounds, one round trip per batch, not
// one retry interval per batch.
func TestLongCatchUp(t *testing.T) {
	s := newSim(t, 3, 6)
	var vs []string
	for i := range 2000 {
		vs = append(vs, fmt.Sprintf("v%d", i))
		s.propose(i%2, vs[i])
	}
	for len(s.pool) > 0 {
		if s.pool[0].To == 2 {
			s.pool = s.pool[1:]
			continue
		}
		s.deliver(0)
	}
	if len(s.applied[2]) != 0 || len(s.applied[0]) != 2000 {
		t.Fatalf("setup: %v", s)
	}
	rounds := 0
	if !s.settle(40, func() bool { rounds++; return s.hasAll(2, vs) }) {
		t.Fatalf("replica 2 did not catch up in 40 rounds:\n%v", s)
	}
	if rounds > 6 {
		t.Errorf("replica 2 took %d rounds to fetch 8 batches, want one round trip per batch", rounds)
	}
}
