package kv

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/internal/jobtest"
	"github.com/plexus-hpc/plexus/kv/kvcheck"
)

// job is a store of 3 replica ranks and one client rank on a twin.
type job struct {
	twin    *commtest.Twin
	worlds  []*comm.World
	cancels []context.CancelFunc
	wg      sync.WaitGroup
}

func newJob(t *testing.T, replicas, ranks int) *job {
	j := &job{}
	t.Cleanup(j.wg.Wait) // runs last, after the worlds close
	j.twin, j.worlds = jobtest.TwinWorlds(t, ranks)
	for r := range replicas {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		j.cancels = append(j.cancels, cancel)
		j.wg.Add(1)
		go func() {
			defer j.wg.Done()
			_ = ServeRanks(ctx, j.worlds[r], RanksConfig{Replicas: replicas, Tick: time.Millisecond, Seed: 1})
		}()
	}
	return j
}

func (j *job) kill(rank int) {
	j.cancels[rank]()
	j.twin.Kill(rank)
}

func testLoad(h *kvcheck.History, ops int) LoadConfig {
	return LoadConfig{Client: ClientConfig{Replicas: 3, Attempt: 200 * time.Millisecond, Timeout: 3 * time.Second},
		Clients: 4, Ops: ops, GetPercent: 50, Keys: 4, KeySize: 8, ValueSize: 16, Seed: 1, History: h}
}

// TestStoreFailover runs a mixed load from 4 clients while a replica is
// killed — the leader, the acceptor or the third one — and checks that
// every request was answered and the history is linearizable for Sets
// and sequentially consistent for Gets (so no acknowledged Set is lost).
func TestStoreFailover(t *testing.T) {
	for _, victim := range []int{-1, 0, 1, 2} {
		t.Run(fmt.Sprintf("kill=%d", victim), func(t *testing.T) {
			j := newJob(t, 3, 4)
			var h kvcheck.History
			ops := 150
			if testing.Short() {
				ops = 60
			}
			killed := make(chan int64, 1)
			if victim >= 0 {
				// Early in the load (a sixteenth of its requests): on a
				// busy machine this goroutine may run late, and the check
				// below needs a quarter of them after the kill.
				go func() {
					for len(h.Ops()) < ops/4 {
						time.Sleep(100 * time.Microsecond)
					}
					j.kill(victim)
					killed <- h.Now()
				}()
			}
			res, err := RunLoad(context.Background(), j.worlds[3], testLoad(&h, ops))
			if err != nil || res.Failed > 0 {
				t.Fatalf("load: %v, %d failed (first: %v)", err, res.Failed, res.FirstErr)
			}
			if res.Ops != 4*ops {
				t.Errorf("%d requests answered, want %d", res.Ops, 4*ops)
			}
			if err := h.Check(); err != nil {
				t.Fatal(err)
			}
			if victim >= 0 {
				at, after := <-killed, 0
				for _, op := range h.Ops() {
					if op.Call > at {
						after++
					}
				}
				if after < ops {
					t.Errorf("only %d requests after the kill", after)
				}
			}
		})
	}
}

// TestStoreMajorityLost kills two of three replicas: requests then fail
// with ErrUnavailable, and what was answered before is still a correct
// history.
func TestStoreMajorityLost(t *testing.T) {
	j := newJob(t, 3, 4)
	var h kvcheck.History
	cfg := testLoad(&h, 20)
	if _, err := RunLoad(context.Background(), j.worlds[3], cfg); err != nil {
		t.Fatal(err)
	}
	j.kill(0)
	j.kill(2)
	cfg.Client.Timeout, cfg.Ops, cfg.GetPercent = 500*time.Millisecond, 3, 0
	res, err := RunLoad(context.Background(), j.worlds[3], cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.Failed != 4*3 || !errors.Is(res.FirstErr, ErrUnavailable) {
		t.Errorf("%d of 12 Sets failed, first error %v; want all, with ErrUnavailable", res.Failed, res.FirstErr)
	}
	if err := h.Check(); err != nil {
		t.Fatal(err)
	}
}
