package agree

import (
	"fmt"
	"testing"
)

// chaos runs steps random steps on s: deliveries in any order, drops,
// duplicates, ticks, proposals and, when mayCrash allows, crashes. It
// returns the values proposed at each replica.
func (s *sim) chaos(steps int, mayCrash func(id int) bool) map[int][]string {
	byReplica := map[int][]string{}
	for i := range steps {
		id := s.rnd.IntN(len(s.nodes))
		switch r := s.rnd.IntN(100); {
		case r < 45 && len(s.pool) > 0:
			s.deliver(s.rnd.IntN(len(s.pool)))
		case r < 50 && len(s.pool) > 0:
			j := s.rnd.IntN(len(s.pool))
			s.pool = append(s.pool[:j], s.pool[j+1:]...)
		case r < 55 && len(s.pool) > 0:
			s.pool = append(s.pool, s.pool[s.rnd.IntN(len(s.pool))])
		case r < 85 && s.up[id]:
			s.tick(id)
		case r < 97 && s.up[id]:
			v := fmt.Sprintf("r%d-%d", id, i)
			byReplica[id] = append(byReplica[id], v)
			s.propose(id, v)
		case r < 98 && s.up[id]:
			s.nodes[id].Report(s.rnd.IntN(len(s.nodes))) // a false suspicion, or a true one
			s.collect(id)
		case r >= 98 && s.mayRestart != nil && s.rnd.IntN(2) == 0:
			if s.mayRestart(id) {
				s.restart(id)
				delete(byReplica, id) // its undecided values are lost with it
			}
		case r >= 98 && s.up[id] && mayCrash(id):
			s.crash(id)
		}
	}
	return byReplica
}

// stable reports whether the group rests in one epoch whose leader and
// acceptor are up, with no reconfiguration under way: crashing one more
// replica then leaves a seal to build the next view from.
func (s *sim) stable() bool {
	var epoch uint64
	for id, n := range s.nodes {
		if !s.up[id] {
			continue
		}
		st := n.Status()
		if epoch != 0 && st.Epoch != epoch || !s.up[st.Leader] || !s.up[st.Acceptor] ||
			n.px.running || n.px.votedView != nil {
			return false
		}
		epoch = st.Epoch
	}
	for _, m := range s.pool {
		if m.Type == Vote || m.Type == Decide || m.Type == Promise {
			return false
		}
	}
	return true
}

func (s *sim) downCount() int {
	d := 0
	for _, up := range s.up {
		if !up {
			d++
		}
	}
	return d
}

// TestRandomSchedules checks safety after every step of random
// schedules with reordering, drops, duplicates and crashes of a minority
// (leader and acceptor included, one at a time), then liveness: once the
// network delivers again, every value proposed at a live replica is
// decided at every live replica.
func TestRandomSchedules(t *testing.T) {
	seeds, steps := 150, 3000
	if testing.Short() {
		seeds, steps = 40, 1500
	}
	for seed := range uint64(seeds) {
		replicas := []int{3, 4, 5, 7}[seed%4]
		t.Run(fmt.Sprintf("seed=%d/replicas=%d", seed, replicas), func(t *testing.T) {
			s := newSim(t, replicas, seed)
			minority := (replicas - 1) / 2
			props := s.chaos(steps, func(int) bool { return s.downCount() < minority && s.stable() })
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

// TestRandomSafety crashes any replica at any time, down to one left
// (a majority lost, leader and acceptor together): progress may stop,
// but the invariants hold at every step.
func TestRandomSafety(t *testing.T) {
	seeds, steps := 150, 3000
	if testing.Short() {
		seeds, steps = 40, 1500
	}
	for seed := range uint64(seeds) {
		replicas := []int{3, 5}[seed%2]
		t.Run(fmt.Sprintf("seed=%d/replicas=%d", seed, replicas), func(t *testing.T) {
			s := newSim(t, replicas, seed+1000)
			s.chaos(steps, func(int) bool { return s.downCount() < replicas-1 })
			s.settle(500, func() bool { return false })
		})
	}
}
