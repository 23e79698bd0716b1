package coll

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/tree"
)

// machineCPUs returns up to n CPUs this process may use, skipping the
// test when there are fewer than two.
func machineCPUs(tb testing.TB, n int) []int {
	tb.Helper()
	cpus, err := affinity.Allowed()
	if err != nil || len(cpus) < 2 {
		tb.Skipf("pinning needs two usable CPUs: %v %v", cpus, err)
	}
	return cpus[:min(n, len(cpus))]
}

// modelOf is synthModel with its CPUs renamed to cpus.
func modelOf(cpus []int) *topo.Model {
	m := synthModel(len(cpus))
	for i := range m.CPUs {
		m.CPUs[i].ID = cpus[i]
	}
	return m
}

func pinnedTeam(tb testing.TB, cpus []int, top tree.Topology, tr Transport) *Team {
	tb.Helper()
	t, err := tree.Build(modelOf(cpus), tree.Spec{Topology: top, Root: tree.AutoRoot})
	if err != nil {
		tb.Fatal(err)
	}
	return newTeam(tb, Config{Broadcast: t, Pin: true, Transport: tr})
}

// Pinned members run on their CPUs, and every collective works there.
func TestPinnedTeam(t *testing.T) {
	cpus := machineCPUs(t, 2)
	for _, tr := range transports {
		t.Run(tr.name, func(t *testing.T) {
			team := pinnedTeam(t, cpus, tree.Adaptive, tr.make())
			run(t, team, func(ctx context.Context, m *Member) error {
				if got, err := currentCPUs(); err != nil || len(got) != 1 || got[0] != m.CPU() {
					return fmt.Errorf("member %d runs on CPUs %v (%v)", m.CPU(), got, err)
				}
				return nil
			})
			mixed(t, team)
		})
	}
}

// Each baseline barrier holds every goroutine until all have arrived.
func TestBaselineBarriers(t *testing.T) {
	for _, n := range []int{1, 2, 3, 8} {
		for name, w := range baselines(n) {
			t.Run(fmt.Sprintf("%s/n=%d", name, n), func(t *testing.T) {
				checkBaseline(t, n, w)
			})
		}
	}
}

func baselines(n int) map[string]func() {
	return map[string]func(){
		"atomic": NewAtomicBarrier(n).Wait, "cond": NewCondBarrier(n).Wait,
		"chan": NewChanBarrier(n).Wait, "waitgroup": NewWaitGroupRound(n).Wait,
	}
}

func checkBaseline(t *testing.T, n int, wait func()) {
	var (
		arrived int64
		mu      sync.Mutex
		wg      sync.WaitGroup
		bad     = make(chan string, n)
	)
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range int64(rounds(2000)) {
				mu.Lock()
				arrived++
				mu.Unlock()
				wait()
				mu.Lock()
				early := arrived < int64(n)*(r+1)
				mu.Unlock()
				if early {
					bad <- fmt.Sprintf("round %d: left early", r)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(bad)
	for msg := range bad {
		t.Error(msg)
	}
}
