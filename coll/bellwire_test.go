package coll

import (
	"sync"
	"testing"

	"github.com/plexus-hpc/plexus/tree"
)

// belledLink records whether the member handed it its bell.
type belledLink struct {
	Link
	mu   sync.Mutex
	bell bool
}

func (l *belledLink) SetBell(chan<- struct{}) {
	l.mu.Lock()
	l.bell = true
	l.mu.Unlock()
}

// TestNewMemberBellsEveryLane: a member made on its own (a rank's) hands
// its bell to the links of every lane it waits on — the trees', the
// dissemination barrier's and the butterfly's — so that a message on any
// of them wakes it. Without the butterfly's, a rank asleep in a doubling
// allreduce slept out its whole nap at every step on the twin transport,
// whose links are belled, not polled (commit 3db59e0 has the times).
func TestNewMemberBellsEveryLane(t *testing.T) {
	for _, a := range []tree.Algorithm{tree.AllreduceDoubling, tree.AllreduceRabenseifner} {
		for _, n := range []int{2, 3, 4, 5} {
			bc := buildTree(t, n, tree.Binary)
			ds := twinDialers(bc.Members())
			var mu sync.Mutex
			var links []*belledLink
			var lanes []Lane
			for _, id := range bc.Members() {
				dial := func(peer int, lane Lane) (Link, error) {
					l, err := ds[id](peer, lane)
					if err != nil {
						return nil, err
					}
					b := &belledLink{Link: l}
					mu.Lock()
					links, lanes = append(links, b), append(lanes, lane)
					mu.Unlock()
					return b, nil
				}
				if _, err := NewMember(Config{Broadcast: bc, Allreduce: tree.FixedAllreduce(a)}, id, dial); err != nil {
					t.Fatal(err)
				}
			}
			seen := map[Lane]bool{}
			for i, l := range links {
				seen[lanes[i]] = true
				if !l.bell {
					t.Errorf("%v, %d members: a link on lane %d got no bell", a, n, lanes[i])
				}
			}
			if !seen[LaneButterfly] {
				t.Errorf("%v, %d members: no butterfly link was dialled", a, n)
			}
		}
	}
}
