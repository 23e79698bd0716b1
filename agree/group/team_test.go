package group

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/agree"
)

// startTeam runs n in-process replicas on a Team. The returned stop
// ends one replica's goroutine; the team then skips it (its tree
// children get its relays directly).
func startTeam(t *testing.T, n int, mode Mode, apply func(id int, e agree.Entry)) (rs []*Replica, team *Team, stop func(id int)) {
	team, err := NewTeam(TeamConfig{Replicas: n, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	for id := range n {
		r, err := New(Config{Agree: agree.Config{ID: id, Replicas: n}, Tick: time.Millisecond,
			Apply: func(e agree.Entry) { apply(id, e) }}, team.Net(id))
		if err != nil {
			t.Fatal(err)
		}
		rs = append(rs, r)
	}
	team.Attach(rs)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	var cancels []context.CancelFunc
	for _, r := range rs {
		rctx, rcancel := context.WithCancel(ctx)
		cancels = append(cancels, rcancel)
		wg.Add(1)
		go func() { defer wg.Done(); _ = r.Run(rctx) }()
	}
	t.Cleanup(func() { cancel(); wg.Wait() })
	return rs, team, func(id int) { cancels[id]() }
}

func TestTeam(t *testing.T) {
	for _, mode := range []Mode{Tree, Sequential} {
		for _, n := range []int{1, 2, 3, 6} {
			t.Run(fmt.Sprintf("mode=%v/replicas=%d", mode, n), func(t *testing.T) {
				var mu sync.Mutex
				applied := make([][]string, n)
				rs, team, _ := startTeam(t, n, mode, func(id int, e agree.Entry) {
					mu.Lock()
					applied[id] = append(applied[id], string(e.Value))
					mu.Unlock()
				})
				const count = 300
				for i := range count {
					if err := rs[i%n].Propose(context.Background(), []byte(fmt.Sprint(i))); err != nil {
						t.Fatal(err)
					}
				}
				deadline := time.Now().Add(20 * time.Second)
				for {
					mu.Lock()
					done := true
					for id := range n {
						done = done && len(applied[id]) >= count
					}
					mu.Unlock()
					if done {
						break
					}
					if time.Now().After(deadline) {
						t.Fatalf("not all applied %d values", count)
					}
					time.Sleep(2 * time.Millisecond)
				}
				if n > 1 && team.Received() == 0 {
					t.Errorf("no broadcast reached a member: the values came by catch-up")
				}
				mu.Lock()
				defer mu.Unlock()
				for id := 1; id < n; id++ {
					if fmt.Sprint(applied[id][:count]) != fmt.Sprint(applied[0][:count]) {
						t.Fatalf("replica %d applied %v, replica 0 %v", id, applied[id][:count], applied[0][:count])
					}
				}
			})
		}
	}
}

// TestTeamNewAcceptor stops the acceptor's replica (replica 1): the new
// view names another acceptor, whose broadcasts go down its own tree,
// skipping the stopped replica, and values proposed after the change are
// decided at every live replica.
func TestTeamNewAcceptor(t *testing.T) {
	const n = 4
	var mu sync.Mutex
	applied := make([]int, n)
	rs, team, stop := startTeam(t, n, Tree, func(id int, e agree.Entry) {
		mu.Lock()
		applied[id]++
		mu.Unlock()
	})
	ctx := context.Background()
	status := func() agree.Status {
		ch := make(chan agree.Status, 1)
		if err := rs[0].Call(ctx, func(nd *agree.Node) { ch <- nd.Status() }); err != nil {
			t.Fatal(err)
		}
		return <-ch
	}
	stop(1)
	deadline := time.Now().Add(10 * time.Second)
	for status().Acceptor == 1 {
		if time.Now().After(deadline) {
			t.Fatalf("acceptor not replaced: %+v", status())
		}
		time.Sleep(time.Millisecond)
	}
	before := team.Received()
	live := []int{0, 2, 3}
	for i := range 100 {
		if err := rs[live[i%3]].Propose(ctx, []byte(fmt.Sprint("after-", i))); err != nil {
			t.Fatal(err)
		}
	}
	for {
		mu.Lock()
		done := true
		for _, id := range live {
			done = done && applied[id] >= 100
		}
		mu.Unlock()
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("values after the change not applied everywhere: %v", applied)
		}
		time.Sleep(time.Millisecond)
	}
	if team.Received() == before {
		t.Errorf("no broadcast after the change: the new acceptor's accepts came by catch-up")
	}
}

// TestTeamPinned runs two replicas pinned to the first two CPUs the
// process may use, with Ps to spare (so they spin under the waiting
// policy) and with none (so they sleep when idle): every value is
// decided at both, in one order. A CPU the process may not use is
// refused when the team is made.
func TestTeamPinned(t *testing.T) {
	cpus, err := affinity.Allowed()
	if err != nil || len(cpus) < 2 {
		t.Skipf("two CPUs to pin to: %v, %v", cpus, err)
	}
	_, err = NewTeam(TeamConfig{Replicas: 2, Mode: Tree, CPUs: []int{cpus[0], 1 << 20}, Pin: true})
	if !errors.Is(err, ErrConfig) || !errors.Is(err, affinity.ErrNotAllowed) {
		t.Errorf("a team pinned to CPU %d: %v, want ErrConfig and affinity.ErrNotAllowed", 1<<20, err)
	}
	for _, procs := range []int{2, 4} {
		t.Run(fmt.Sprintf("gomaxprocs=%d", procs), func(t *testing.T) {
			defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
			team, err := NewTeam(TeamConfig{Replicas: 2, Mode: Tree, CPUs: cpus[:2], Pin: true})
			if err != nil {
				t.Fatal(err)
			}
			if spins := team.policy != nil; spins != (procs > 2) {
				t.Fatalf("policy %v with %d Ps for 2 replicas", team.policy, procs)
			}
			applied := &appliedLog{slots: make([][]agree.Entry, 2)}
			var rs []*Replica
			for id := range 2 {
				r, err := New(Config{Agree: agree.Config{ID: id, Replicas: 2}, Apply: func(e agree.Entry) { applied.add(id, e) }}, team.Net(id))
				if err != nil {
					t.Fatal(err)
				}
				rs = append(rs, r)
			}
			team.Attach(rs)
			ctx, cancel := context.WithCancel(context.Background())
			var wg sync.WaitGroup
			defer func() { cancel(); wg.Wait() }()
			for _, r := range rs {
				wg.Add(1)
				go func() { defer wg.Done(); _ = r.Run(ctx) }()
			}
			const count = 100
			for i := range count {
				if err := rs[i%2].Propose(ctx, fmt.Appendf(nil, "p%d", i)); err != nil {
					t.Fatal(err)
				}
			}
			waitAllApplied(t, applied, count)
		})
	}
}

// waitAllApplied waits until every replica applied count entries, then
// checks that they applied the same ones.
func waitAllApplied(t *testing.T, applied *appliedLog, count int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		applied.mu.Lock()
		done := true
		for _, es := range applied.slots {
			done = done && len(es) >= count
		}
		if done {
			defer applied.mu.Unlock()
			break
		}
		applied.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("not every replica applied %d values", count)
		}
		time.Sleep(time.Millisecond)
	}
	for id, es := range applied.slots {
		if fmt.Sprint(es[:count]) != fmt.Sprint(applied.slots[0][:count]) {
			t.Fatalf("replica %d applied %v, replica 0 %v", id, es[:count], applied.slots[0][:count])
		}
	}
}
