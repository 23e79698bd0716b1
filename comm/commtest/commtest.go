// Package commtest makes comm worlds for tests: several ranks in one
// process, over an in-memory transport that can crash a rank (Twin), or
// over one explicitly configured transport (SHM, TCP), as
// net/http/httptest makes servers for tests of net/http code.
//
// A program that runs as a job uses comm.Join instead.
package commtest

import (
	"fmt"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/internal/testhook"
	"github.com/plexus-hpc/plexus/transport/shm"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// Twin connects the worlds of n ranks inside one process: one ordered
// queue and one delivering goroutine per ordered pair of ranks, with
// frames delivered in order per pair, and Kill to crash a rank. Tests run
// the same world code over it as over TCP or shared memory.
//
// All methods may be called from any goroutine.
type Twin struct {
	n    int
	open func(rank int, cfg comm.Config) (*comm.World, error)
	kill func(rank int)
}

// NewTwin returns a twin connecting n ranks.
func NewTwin(n int) *Twin {
	mk := testhook.Twin.(func(int) (func(int, comm.Config) (*comm.World, error), func(int)))
	open, kill := mk(n)
	return &Twin{n: n, open: open, kill: kill}
}

// World returns the world of rank, with cfg's settings; its Rank and Size
// are rank and the twin's size. Each rank's world may be made once.
func (t *Twin) World(rank int, cfg comm.Config) (*comm.World, error) {
	if rank < 0 || rank >= t.n {
		return nil, fmt.Errorf("commtest: rank %d outside [0, %d)", rank, t.n)
	}
	return t.open(rank, cfg)
}

// Kill makes rank fail as a crashed process would: frames in flight to and
// from it are dropped, its sends fail, and every rank, rank included,
// hears that its peer is lost (comm.ErrPeerLost).
func (t *Twin) Kill(rank int) { t.kill(rank) }

// SHM returns a world over a shared-memory endpoint configured by sc (its
// callbacks are the world's): every rank must open the same sc.Dir and
// sc.JobID on this host. A passive endpoint (sc.Passive) needs
// cfg.Serialized. A nil sc.Logger means cfg.Logger.
func SHM(cfg comm.Config, sc shm.Config) (*comm.World, error) {
	return testhook.SHM.(func(comm.Config, shm.Config) (*comm.World, error))(cfg, sc)
}

// TCP returns a world over a TCP endpoint configured by tc (its callbacks
// are the world's). The endpoint is reported to ready, if not nil, once
// it listens, so that the caller can publish its address to the other
// ranks' tc.Addrs. A nil tc.Logger means cfg.Logger.
func TCP(cfg comm.Config, tc tcp.Config, ready func(*tcp.Endpoint)) (*comm.World, error) {
	return testhook.TCP.(func(comm.Config, tcp.Config, func(*tcp.Endpoint)) (*comm.World, error))(cfg, tc, ready)
}
