//go:build linux

package collective

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/commtest"
	"github.com/plexus-hpc/plexus/transport/shm"
)

func init() {
	makers["shm"] = shmWorlds
	makers["serial"] = serialWorlds
}

// shmWorlds returns n worlds over one shared-memory segment in a fresh
// directory on /dev/shm; their links signal through its counters.
func shmWorlds(t testing.TB, n int) fixture { return shmWorldsOf(t, n, false) }

// serialWorlds is shmWorlds with serialized worlds on a passive segment:
// each rank's world must be used by one goroutine at a time.
func serialWorlds(t testing.TB, n int) fixture {
	f := shmWorldsOf(t, n, true)
	for r, w := range f.ws {
		if !w.Serialized() {
			t.Fatalf("world %d is not serialized", r)
		}
	}
	return f
}

func shmWorldsOf(t testing.TB, n int, serial bool) fixture {
	t.Helper()
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-collective-test-")
	if err != nil {
		t.Skip(err)
	}
	ws, err := commtest.SHMWorlds(n, "collective-test", dir, comm.Config{Serialized: serial})
	if err != nil {
		os.RemoveAll(dir)
		t.Fatal(err)
	}
	t.Cleanup(func() {
		closeAll(ws)
		os.RemoveAll(dir)
	})
	return fixture{ws, func(r int) { ws[r].Close() }}
}

// TestSerialLateRank: in serialized worlds nobody but a waiting member
// receives, so a member kept waiting past its polling budget must go on
// polling between naps (coll.ProgressSleeper) rather than wait for a bell
// that no delivery would ring.
func TestSerialLateRank(t *testing.T) {
	f := serialWorlds(t, 2)
	ctx := testCtx(t)
	comms := newComms(t, ctx, f.ws, Config{})
	err := eachRank(2, func(r int) error {
		for i := range 5 {
			if r == 1 {
				time.Sleep(5 * time.Millisecond) // the other rank naps meanwhile
			}
			if err := comms[r].Barrier(ctx); err != nil {
				return fmt.Errorf("barrier %d: %w", i, err)
			}
			if err := checkAllreduce(ctx, comms[r], i, 4); err != nil {
				return fmt.Errorf("allreduce %d: %w", i, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
