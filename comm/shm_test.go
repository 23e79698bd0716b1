//go:build linux

package comm

import (
	"os"
	"testing"

	"github.com/plexus-hpc/plexus/transport/shm"
)

func init() {
	makers["shm"] = shmWorlds
}

// shmWorlds returns n worlds over one shared-memory segment in a fresh
// directory on /dev/shm.
func shmWorlds(t testing.TB, n int, cfg Config) fixture {
	t.Helper()
	ws := shmWorldsVia(t, n, cfg, nil)
	return fixture{ws, func(r int) { ws[r].Close() }}
}

// shmWorldsVia is shmWorlds with rank i's opener passed through wrap, if
// wrap is not nil.
func shmWorldsVia(t testing.TB, n int, cfg Config, wrap func(i int, open opener) opener) []*World {
	t.Helper()
	return shmWorldsIn(t, n, cfg, false, wrap)
}

// shmWorldsIn is shmWorldsVia with passive endpoints if passive is set.
func shmWorldsIn(t testing.TB, n int, cfg Config, passive bool, wrap func(i int, open opener) opener) []*World {
	t.Helper()
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-comm-test-")
	if err != nil {
		t.Skip(err)
	}
	ws := make([]*World, n)
	t.Cleanup(func() {
		for _, w := range ws {
			if w != nil {
				w.Close()
			}
		}
		os.RemoveAll(dir)
	})
	for i := range ws {
		c := cfg
		c.Rank, c.Size = i, n
		open := openSHM(shm.Config{Rank: i, Size: n, JobID: "comm-test", Dir: dir, Passive: passive})
		if wrap != nil {
			open = wrap(i, open)
		}
		w, err := openWorld(c, open)
		if err != nil {
			t.Fatal(err)
		}
		ws[i] = w
	}
	return ws
}

func TestSHM(t *testing.T) {
	t.Run("sizes", func(t *testing.T) { testSendRecvSizes(t, shmWorlds) })
	t.Run("wildcards", func(t *testing.T) { testWildcards(t, shmWorlds) })
}
