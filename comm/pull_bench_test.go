//go:build linux

package comm

import (
	"fmt"
	"os"
	"testing"

	"github.com/plexus-hpc/plexus/transport/shm"
)

// BenchmarkPullPingPong compares, over shared memory between two worlds
// of this process, the three ways a message of each size can go: eagerly
// through the ring (proto=eager), by rendezvous with the data pushed
// through the ring (proto=push, shm.Config.NoPull) and by rendezvous with
// a single-copy pull (proto=pull). ns/op is a round trip.
func BenchmarkPullPingPong(b *testing.B) {
	for _, size := range []int{1 << 10, 2 << 10, 4 << 10, 8 << 10, 16 << 10, 32 << 10, 64 << 10, 256 << 10, 1 << 20, 4 << 20} {
		for _, proto := range []string{"eager", "push", "pull"} {
			if proto == "eager" && size >= maxPooled {
				continue
			}
			b.Run(fmt.Sprintf("size=%d/proto=%s", size, proto), func(b *testing.B) {
				cfg := Config{EagerLimit: 512}
				if proto == "eager" {
					cfg.EagerLimit = size + 1
				}
				pingPong(b, benchSHMWorlds(b, cfg, proto == "push"), size)
			})
		}
	}
}

// benchSHMWorlds returns two worlds over shared memory, with pulls or
// without.
func benchSHMWorlds(b *testing.B, cfg Config, noPull bool) []*World {
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-pull-bench-")
	if err != nil {
		b.Skip(err)
	}
	ws := make([]*World, 2)
	for i := range ws {
		c := cfg
		c.Rank, c.Size = i, 2
		w, err := openWorld(c, openSHM(shm.Config{Rank: i, Size: 2, JobID: "pull-bench", Dir: dir, NoPull: noPull}))
		if err != nil {
			b.Fatal(err)
		}
		ws[i] = w
	}
	b.Cleanup(func() {
		for _, w := range ws {
			w.Close()
		}
		os.RemoveAll(dir)
	})
	return ws
}
