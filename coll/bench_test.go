package coll

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/internal/baseline"
	"github.com/plexus-hpc/plexus/tree"
)

// Benchmarks run one member per usable CPU (two on the reference
// machine), each pinned, and report ns per operation: one barrier, one
// broadcast message delivered everywhere, one reduction.

var benchTopologies = []tree.Topology{tree.Adaptive, tree.Binary}

func BenchmarkBarrier(b *testing.B) {
	cpus := machineCPUs(b, 2)
	prefix := fmt.Sprintf("members=%d/impl=", len(cpus))
	for _, top := range benchTopologies {
		b.Run(prefix+"team-"+top.String(), func(b *testing.B) {
			benchTeam(b, pinnedTeam(b, cpus, top, nil), (*Member).Barrier)
		})
	}
	b.Run(prefix+"team-adaptive-messages", func(b *testing.B) {
		tr := withoutSignals(rings(DefaultSlots), nil) // the fallback: zero-length messages
		benchTeam(b, pinnedTeam(b, cpus, tree.Adaptive, tr), (*Member).Barrier)
	})
	b.Run(prefix+"dissemination", func(b *testing.B) {
		benchTeam(b, pinnedTeam(b, cpus, tree.Adaptive, nil), (*Member).DisseminationBarrier)
	})
	for _, name := range []string{"atomic", "cond", "chan", "waitgroup"} {
		b.Run(prefix+name, func(b *testing.B) {
			wait := baselines(len(cpus))[name]
			benchPinned(b, cpus, func(int) {
				for range b.N {
					wait()
				}
			})
		})
	}
}

func BenchmarkBroadcast(b *testing.B) {
	cpus := machineCPUs(b, 2)
	prefix := fmt.Sprintf("members=%d/impl=", len(cpus))
	for _, top := range benchTopologies {
		b.Run(prefix+"team-"+top.String(), func(b *testing.B) {
			b.SetBytes(8)
			var buf [8]byte
			benchTeam(b, pinnedTeam(b, cpus, top, nil), func(m *Member, ctx context.Context) error {
				_, err := m.Broadcast(ctx, buf[:], 8)
				return err
			})
		})
	}
	b.Run(prefix+"chan", func(b *testing.B) {
		b.SetBytes(8)
		benchChanFanout(b, cpus)
	})
}

func BenchmarkReduce(b *testing.B) {
	cpus := machineCPUs(b, 2)
	prefix := fmt.Sprintf("members=%d/impl=", len(cpus))
	for _, top := range benchTopologies {
		b.Run(prefix+"team-"+top.String(), func(b *testing.B) {
			b.SetBytes(8)
			benchTeam(b, pinnedTeam(b, cpus, top, nil), func(m *Member, ctx context.Context) error {
				in, out := [1]int64{int64(m.CPU())}, [1]int64{}
				return ReduceValues(ctx, m, in[:], out[:], sum)
			})
		})
	}
	b.Run(prefix+"chan", func(b *testing.B) {
		b.SetBytes(8)
		benchChanGather(b, cpus)
	})
}

// benchTeam runs op b.N times on every member of team. The root resets
// the timer after a warm-up, once every member is pinned and spinning.
func benchTeam(b *testing.B, team *Team, op func(m *Member, ctx context.Context) error) {
	b.ReportAllocs()
	ctx := context.Background()
	err := team.Run(ctx, func(m *Member) error {
		for range 1000 {
			if err := m.Barrier(ctx); err != nil {
				return err
			}
		}
		if m.IsRoot() {
			b.ResetTimer()
		}
		if err := m.Barrier(ctx); err != nil {
			return err
		}
		for range b.N {
			if err := op(m, ctx); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
}

// benchPinned runs f(i) on one goroutine pinned to each of cpus.
func benchPinned(b *testing.B, cpus []int, f func(i int)) {
	b.ReportAllocs()
	var wg sync.WaitGroup
	errs := make([]error, len(cpus))
	for i, c := range cpus {
		wg.Add(1)
		go func() {
			defer wg.Done()
			unpin, err := affinity.Pin(c)
			if errs[i] = err; err != nil {
				return
			}
			defer unpin()
			f(i)
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			b.Fatal(err)
		}
	}
}

// benchChanFanout is a broadcast over buffered channels: goroutine 0
// sends each message to every other goroutine's channel.
func benchChanFanout(b *testing.B, cpus []int) {
	chans := make([]chan [8]byte, len(cpus))
	for i := range chans {
		chans[i] = make(chan [8]byte, DefaultSlots)
	}
	benchPinned(b, cpus, func(i int) {
		for range b.N {
			if i > 0 {
				<-chans[i]
				continue
			}
			for _, c := range chans[1:] {
				c <- [8]byte{}
			}
		}
	})
}

// benchChanGather is a reduction over one buffered channel: every
// goroutine but 0 sends its value, goroutine 0 sums n-1 values.
func benchChanGather(b *testing.B, cpus []int) {
	c := make(chan int64, DefaultSlots)
	benchPinned(b, cpus, func(i int) {
		for range b.N {
			if i > 0 {
				c <- int64(i)
				continue
			}
			var s int64
			for range len(cpus) - 1 {
				s += <-c
			}
			_ = s
		}
	})
}

// baselines returns the Wait methods of the conventional barriers the
// team's Barrier is compared with, by name.
func baselines(n int) map[string]func() {
	return map[string]func(){
		"atomic": baseline.NewAtomic(n).Wait, "cond": baseline.NewCond(n).Wait,
		"chan": baseline.NewChan(n).Wait, "waitgroup": baseline.NewWaitGroup(n).Wait,
	}
}
