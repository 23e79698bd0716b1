package coll

import (
	"runtime"
	"testing"

	"github.com/plexus-hpc/plexus/internal/wait"
	"github.com/plexus-hpc/plexus/tree"
)

// Members that the caller pins (Member.Pin or affinity.Pin on goroutines
// of its own, as plexus bench coll and any user driving Team.Members do)
// own their CPUs as much as members that Run pins, and must wait as such.
// When the policy followed Config.Pin instead, they waited under
// wait.Shared: a wait longer than its short spin yielded with
// runtime.Gosched, which on a locked thread parks the thread and hands
// the goroutine back through another. On many cores every barrier's
// leaves wait that long, and large teams stalled at every operation
// (issue 20; docs/benchmarks.md, "Many cores"). Two CPUs do not show it in time (the hand-off is cheap
// with two threads), so this test checks the rule itself.

// TestPolicyFollowsWhoCanRun checks every member's waiting policy: teams
// that fit in GOMAXPROCS wait as pinned members do, whether or not Run
// pins them, and never yield with runtime.Gosched; larger teams share.
func TestPolicyFollowsWhoCanRun(t *testing.T) {
	procs := runtime.GOMAXPROCS(0)
	for _, c := range []struct {
		n    int
		pin  bool
		want *wait.Policy
	}{
		{2, false, &wait.Pinned},
		{min(procs, 4), false, &wait.Pinned},
		{procs + 1, false, &wait.Shared},
		{procs + 3, false, &wait.Shared},
	} {
		if c.n < 2 {
			continue
		}
		bc, err := tree.Build(synthModel(c.n), tree.Spec{Topology: tree.Binary, Root: tree.AutoRoot})
		if err != nil {
			t.Fatal(err)
		}
		team := newTeam(t, Config{Broadcast: bc, Pin: c.pin})
		for _, m := range team.Members() {
			if m.policy != c.want {
				t.Errorf("%d members (GOMAXPROCS %d), Pin %v: member %d waits under %+v, want %+v",
					c.n, procs, c.pin, m.CPU(), *m.policy, *c.want)
			}
			if c.n <= procs && !m.policy.OSYield {
				t.Errorf("%d members: member %d would yield with runtime.Gosched", c.n, m.CPU())
			}
		}
		team.Close()
	}
}
