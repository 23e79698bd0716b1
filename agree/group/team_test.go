package group

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/agree"
)

// startTeam runs n in-process replicas on a coll team.
func startTeam(t *testing.T, n int, mode Mode, apply func(id int, e agree.Entry)) ([]*Replica, *Team) {
	team, err := NewTeam(TeamConfig{Replicas: n, Mode: mode})
	if err != nil {
		t.Fatal(err)
	}
	var rs []*Replica
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
	for _, r := range rs {
		wg.Add(1)
		go func() { defer wg.Done(); _ = r.Run(ctx) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); _ = team.Run(ctx) }()
	t.Cleanup(func() { cancel(); wg.Wait() })
	return rs, team
}

func TestTeam(t *testing.T) {
	for _, mode := range []Mode{Tree, Sequential} {
		for _, n := range []int{1, 2, 3, 6} {
			t.Run(fmt.Sprintf("mode=%v/replicas=%d", mode, n), func(t *testing.T) {
				var mu sync.Mutex
				applied := make([][]string, n)
				rs, team := startTeam(t, n, mode, func(id int, e agree.Entry) {
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
				if n > 1 && team.received.Load() == 0 {
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
