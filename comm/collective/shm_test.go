//go:build linux

package collective

import (
	"os"
	"testing"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/transport/shm"
)

func init() { makers["shm"] = shmWorlds }

// shmWorlds returns n worlds over one shared-memory segment in a fresh
// directory on /dev/shm; their links signal through its counters.
func shmWorlds(t testing.TB, n int) fixture {
	t.Helper()
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-collective-test-")
	if err != nil {
		t.Skip(err)
	}
	ws := make([]*comm.World, n)
	for i := range ws {
		sc := shm.Config{Rank: i, Size: n, JobID: "collective-test", Dir: dir}
		w, err := comm.New(comm.Config{Rank: i, Size: n}, comm.SHM(sc))
		if err != nil {
			t.Fatal(err)
		}
		ws[i] = w
	}
	t.Cleanup(func() {
		closeAll(ws)
		os.RemoveAll(dir)
	})
	return fixture{ws, func(r int) { ws[r].Close() }}
}
