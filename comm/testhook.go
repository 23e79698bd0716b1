package comm

import (
	"cmp"
	"github.com/plexus-hpc/plexus/comm/internal/testhook"
	"github.com/plexus-hpc/plexus/transport/shm"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// init hands package comm/commtest the worlds over the twin and over one
// explicitly configured transport, which only tests need.
func init() {
	testhook.Twin = func(n int) (func(rank int, cfg Config) (*World, error), func(rank int)) {
		t := newTwin(n)
		open := func(rank int, cfg Config) (*World, error) {
			cfg.Rank, cfg.Size = rank, n
			return openWorld(cfg, t.Opener(rank))
		}
		return open, t.Kill
	}
	testhook.SHM = func(cfg Config, sc shm.Config) (*World, error) {
		sc.Logger = cmp.Or(sc.Logger, cfg.Logger)
		return openWorld(cfg, openSHM(sc))
	}
	testhook.TCP = func(cfg Config, tc tcp.Config, ready func(*tcp.Endpoint)) (*World, error) {
		tc.Logger = cmp.Or(tc.Logger, cfg.Logger)
		return openWorld(cfg, openTCP(tc, ready))
	}
}
