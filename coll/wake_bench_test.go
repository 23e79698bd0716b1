package coll

import (
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/internal/wait"
	"github.com/plexus-hpc/plexus/tree"
)

// BenchmarkWake times the wake-up of a member blocked at its door by a
// member that goes on spinning afterwards (as a team's members do), both
// pinned to CPUs of their own, with a channel door and a futex door side
// by side. It reports the median and 90th percentile nanoseconds from the
// waker's notify to the sleeper running again (wake-p50-ns, wake-p90-ns).
func BenchmarkWake(b *testing.B) {
	cpus, err := affinity.Allowed()
	if err != nil || len(cpus) < 2 {
		b.Skipf("needs two usable CPUs: %v %v", cpus, err)
	}
	for _, futex := range []bool{false, true} {
		name := "door=chan"
		if futex {
			name = "door=futex"
			if !wait.HaveFutex {
				continue
			}
		}
		b.Run(name, func(b *testing.B) { benchWake(b, cpus[:2], futex) })
	}
}

func benchWake(b *testing.B, cpus []int, futex bool) {
	team := newTeam(b, Config{Broadcast: buildTree(b, 2, tree.Binary)})
	ms := team.Members()
	a, s := ms[0], ms[1]
	s.door.futex = futex
	var round, woke atomic.Int64
	lat := make([]time.Duration, b.N)
	done := make(chan error, 2)
	go func() { // the sleeper
		unpin, err := affinity.Pin(cpus[1])
		if err != nil {
			done <- err
			return
		}
		defer unpin()
		for i := range b.N {
			s.door.state.Store(asleep)
			round.Store(int64(i + 1))
			for !s.block() {
				s.door.state.Store(asleep) // timed out before the wake: sleep again
			}
			woke.Store(time.Now().UnixNano())
			s.repay()
			for round.Load() != -int64(i+1) {
			}
		}
		done <- nil
	}()
	go func() { // the waker
		unpin, err := affinity.Pin(cpus[0])
		if err != nil {
			done <- err
			return
		}
		defer unpin()
		for i := range b.N {
			for round.Load() != int64(i+1) {
			}
			time.Sleep(20 * time.Microsecond) // let the sleeper block
			woke.Store(0)
			sent := time.Now().UnixNano()
			a.notify(end{peer: s.door})
			for woke.Load() == 0 { // spin on, as a member waiting for the next message
			}
			lat[i] = time.Duration(woke.Load() - sent)
			round.Store(-int64(i + 1))
		}
		done <- nil
	}()
	for range 2 {
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "wake-p50-ns")
	b.ReportMetric(float64(lat[len(lat)*9/10].Nanoseconds()), "wake-p90-ns")
}
