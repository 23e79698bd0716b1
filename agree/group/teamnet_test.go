package group

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/plexus-hpc/plexus/agree"
)

// TestTeamBroadcastExactlyOnce broadcasts count accepts from replica 1
// (driven by the test, its Run not started) to 7 others before they run,
// so that the link's ring fills and the rest waits in the backlog: every
// running replica receives every frame exactly once (the team's count)
// and applies slots 1..count in order with their values, also when an
// inner relay of the tree was stopped (its children get its relays).
func TestTeamBroadcastExactlyOnce(t *testing.T) {
	const n, count = 8, 2000
	for _, tc := range []struct {
		mode      Mode
		stopRelay bool
	}{{Tree, false}, {Sequential, false}, {Tree, true}} {
		t.Run(fmt.Sprintf("mode=%v/stop-relay=%v", tc.mode, tc.stopRelay), func(t *testing.T) {
			team, rs, applied := quietTeam(t, n, tc.mode)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			t.Cleanup(func() { cancel(); wg.Wait() })
			run := func(id int, ctx context.Context) {
				wg.Add(1)
				go func() { defer wg.Done(); _ = rs[id].Run(ctx) }()
			}
			stopped := -1
			if tc.stopRelay {
				stopped = innerRelay(t, team, 1)
				rctx, rcancel := context.WithCancel(ctx)
				run(stopped, rctx)
				rcancel()
				for !team.members[stopped].stopped.Load() {
					time.Sleep(time.Millisecond)
				}
			}
			net, src := team.Net(1), team.members[1]
			for s := uint64(1); s <= count; s++ {
				f, err := encodeFrame(nil, frameTree, 1, []agree.Message{{Type: agree.Accept, From: 1, To: agree.All, Epoch: 1, Slot: s, Value: fmt.Appendf(nil, "v%d", s)}})
				if err != nil {
					t.Fatal(err)
				}
				if err := net.Broadcast(ctx, f); err != nil {
					t.Fatal(err)
				}
			}
			if src.waiting == 0 {
				t.Fatalf("no frame waited in the backlog: the test does not cover it")
			}
			for id := range n {
				if id != 1 && id != stopped {
					run(id, ctx)
				}
			}
			for src.waiting > 0 { // replica 1's goroutine is this one
				team.flushBacklog(src)
				time.Sleep(50 * time.Microsecond)
			}
			checkApplied(t, team, applied, count, stopped)
		})
	}
}

// quietTeam makes n replicas on a team whose clocks never tick (no
// heartbeat, timeout or resend: what arrives is what the links carried);
// applied[id] gets replica id's decided values, under its lock.
func quietTeam(t *testing.T, n int, mode Mode) (*Team, []*Replica, *appliedLog) {
	team, err := NewTeam(TeamConfig{Replicas: n, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	applied := &appliedLog{slots: make([][]agree.Entry, n)}
	var rs []*Replica
	for id := range n {
		r, err := New(Config{Agree: agree.Config{ID: id, Replicas: n}, Ticks: make(chan time.Time),
			Apply: func(e agree.Entry) { applied.add(id, e) }}, team.Net(id))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	team.Attach(rs)
	return team, rs, applied
}

type appliedLog struct {
	mu    sync.Mutex
	slots [][]agree.Entry
}

func (a *appliedLog) add(id int, e agree.Entry) {
	a.mu.Lock()
	a.slots[id] = append(a.slots[id], e)
	a.mu.Unlock()
}

// innerRelay returns a replica other than root with children in root's
// tree.
func innerRelay(t *testing.T, team *Team, root int) int {
	for id, kids := range team.kids[root] {
		if id != root && len(kids) > 0 {
			return id
		}
	}
	t.Fatalf("the tree rooted at %d has no inner relay: %v", root, team.kids[root])
	return -1
}

// checkApplied waits until every replica but 1 and stopped applied count
// slots, then checks the order, the values and the frame counts.
func checkApplied(t *testing.T, team *Team, applied *appliedLog, count, stopped int) {
	t.Helper()
	live := 0
	for id := range applied.slots {
		if id != 1 && id != stopped {
			live++
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for team.Received() < int64(live*count) && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // time for a duplicate to show
	applied.mu.Lock()
	defer applied.mu.Unlock()
	for id, es := range applied.slots {
		if id == 1 || id == stopped {
			continue
		}
		if got := team.members[id].received.Load(); got != int64(count) {
			t.Errorf("replica %d received %d broadcast frames, want %d", id, got, count)
		}
		if len(es) != count {
			t.Fatalf("replica %d applied %d slots, want %d", id, len(es), count)
		}
		for i, e := range es {
			if e.Slot != uint64(i+1) || string(e.Value) != fmt.Sprintf("v%d", i+1) {
				t.Fatalf("replica %d applied slot %d = %q at position %d", id, e.Slot, e.Value, i)
			}
		}
	}
}

// TestMemberLayout checks that the groups of a member's fields (by who
// writes them) are at least a cache line apart, so that a sender's loads
// of one group never share a line with the stores of another.
func TestMemberLayout(t *testing.T) {
	var m member
	const line = 64
	gaps := []struct {
		name       string
		end, start uintptr
	}{
		{"read-only / owner's", unsafe.Offsetof(m.out) + unsafe.Sizeof(m.out), unsafe.Offsetof(m.backlog)},
		{"owner's / senders'", unsafe.Offsetof(m.values) + unsafe.Sizeof(m.values), unsafe.Offsetof(m.asleep)},
		{"senders' / counter", unsafe.Offsetof(m.bell) + unsafe.Sizeof(m.bell), unsafe.Offsetof(m.received)},
	}
	for _, g := range gaps {
		if g.start-g.end < line {
			t.Errorf("%s: %d bytes apart, want at least %d", g.name, g.start-g.end, line)
		}
	}
}
