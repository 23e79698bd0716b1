package kv

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/internal/jobtest"
	"github.com/plexus-hpc/plexus/kv/kvcheck"
)

// newRestartJob is newJob whose replicas compact every compact slots
// and restart with their state lost when their channel delivers.
func newRestartJob(t *testing.T, compact int) (*job, []chan struct{}) {
	j := &job{}
	t.Cleanup(j.wg.Wait)
	var twin *commtest.Twin
	twin, j.worlds = jobtest.TwinWorlds(t, 4)
	j.twin = twin
	var restarts []chan struct{}
	for r := range 3 {
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		restart := make(chan struct{})
		restarts = append(restarts, restart)
		j.wg.Add(1)
		go func() {
			defer j.wg.Done()
			_ = ServeRanks(ctx, j.worlds[r], RanksConfig{Replicas: 3, Tick: time.Millisecond, Seed: 1,
				CompactEvery: compact, Restart: restart})
		}()
	}
	return j, restarts
}

// TestStoreRestart restarts one replica's state (the leader, the
// acceptor or the third) in the middle of a mixed load, with compaction
// every 16 slots (and the acceptor once without): no request fails, the history is linearizable for Sets
// (no acknowledged Set lost) and sequentially consistent for Gets; then
// fresh clients that read at the restarted replica see what the load
// wrote (checked in the same history).
func TestStoreRestart(t *testing.T) {
	for _, tc := range []struct{ victim, compact int }{{0, 16}, {1, 16}, {2, 16}, {1, -1}} {
		victim := tc.victim
		t.Run(fmt.Sprintf("restart=%d/compact=%d", victim, tc.compact), func(t *testing.T) {
			j, restarts := newRestartJob(t, tc.compact)
			var h kvcheck.History
			ops := 150
			if testing.Short() {
				ops = 60
			}
			var wg sync.WaitGroup
			var restartAt int64
			wg.Add(1)
			go func() {
				defer wg.Done()
				for len(h.Ops()) < ops/4 {
					time.Sleep(100 * time.Microsecond)
				}
				restarts[victim] <- struct{}{}
				restartAt = h.Now()
			}()
			res, err := RunLoad(context.Background(), j.worlds[3], testLoad(&h, ops))
			wg.Wait()
			if err != nil || res.Failed > 0 || res.Ops != 4*ops {
				t.Fatalf("load: %v, %d answered, %d failed (first: %v)", err, res.Ops, res.Failed, res.FirstErr)
			}
			if at := readAt(t, j, victim, &h); at < setsBefore(h.Ops(), restartAt) {
				t.Errorf("restarted replica read at slot %d, below the Sets acknowledged before its restart (%d)",
					at, setsBefore(h.Ops(), restartAt))
			}
			if err := h.Check(); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// setsBefore is the highest slot of the Sets acknowledged before at.
func setsBefore(ops []kvcheck.Op, at int64) uint64 {
	var top uint64
	for _, op := range ops {
		if op.Kind == kvcheck.Set && !op.Failed && op.Return < at {
			top = max(top, op.Slot)
		}
	}
	return top
}

// readPatience is how long readAt waits for the restarted replica's
// answer. The check is that it answers, not how soon: on a loaded
// machine a replica's answer can take longer than the load's attempts
// (a fraction of a second), and a client that then tried another
// replica would make the test fail although nothing went wrong.
const readPatience = 20 * time.Second

// readAt reads every key of the load at replica victim, from a client
// that has seen nothing (so only the replica's own catching up makes it
// wait) and that waits for the victim's answer up to readPatience
// without trying another replica, records the Gets in h and returns the
// slot of the first; it fails if another replica answered.
func readAt(t *testing.T, j *job, victim int, h *kvcheck.History) uint64 {
	var first uint64
	cfg := testLoad(h, 0).Client
	cfg.Index, cfg.Prefer = 100, victim
	cfg.Attempt, cfg.Timeout = readPatience, readPatience
	c, err := NewClient(j.worlds[3], cfg)
	if err != nil {
		t.Fatal(err)
	}
	for k := range 4 {
		key := fmt.Appendf(nil, "%0*d", 8, k)
		op := kvcheck.Op{Client: int(c.id), Kind: kvcheck.Get, Key: key, Call: h.Now()}
		op.Out, err = c.Get(context.Background(), key)
		op.Return, op.Slot, op.Failed = h.Now(), c.Slot(), err != nil
		h.Add(op)
		if err != nil || c.at != victim {
			t.Fatalf("Get of %q at replica %d: %v, answered by replica %d", key, victim, err, c.at)
		}
		if k == 0 {
			first = op.Slot
		}
	}
	return first
}
