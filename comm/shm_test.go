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
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-comm-test-")
	if err != nil {
		t.Skip(err)
	}
	ws := make([]*World, n)
	for i := range ws {
		c := cfg
		c.Rank, c.Size = i, n
		w, err := New(c, SHM(shm.Config{Rank: i, Size: n, JobID: "comm-test", Dir: dir}))
		if err != nil {
			t.Fatal(err)
		}
		ws[i] = w
	}
	t.Cleanup(func() {
		for _, w := range ws {
			w.Close()
		}
		os.RemoveAll(dir)
	})
	return fixture{ws, func(r int) { ws[r].Close() }}
}

func TestSHM(t *testing.T) {
	t.Run("sizes", func(t *testing.T) { testSendRecvSizes(t, shmWorlds) })
	t.Run("wildcards", func(t *testing.T) { testWildcards(t, shmWorlds) })
}
