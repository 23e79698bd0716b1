package commtest

import (
	"errors"
	"fmt"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/internal/testhook"
	"github.com/plexus-hpc/plexus/transport/shm"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// HostWorlds returns the worlds of a job called job whose rank r runs on
// the pretend host hosts[r], as comm.Join makes them on a cluster: ranks
// with the same host name talk over shared memory (one segment per
// host, in dir), the others over TCP on the loopback. Each world is made
// with cfg (its Rank and Size set per world); a nil cfg.Logger discards
// the transports' messages. An empty dir means TCP alone, between ranks
// of one host too, as with comm.TransportTCP. On error the worlds made
// so far are closed.
func HostWorlds(hosts []string, job, dir string, cfg comm.Config) ([]*comm.World, error) {
	n := len(hosts)
	addrs := make([]string, n)
	ready := make(chan struct{})
	book := func(rank int) (string, error) {
		select {
		case <-ready:
			return addrs[rank], nil
		case <-time.After(time.Minute):
			return "", errors.New("commtest: no address book after a minute")
		}
	}
	open := testhook.Hosts.(func(comm.Config, []string, tcp.Config, func(*tcp.Endpoint), shm.Config) (*comm.World, error))
	ws := make([]*comm.World, n)
	for i := range ws {
		c := rankConfig(cfg, i, n)
		tc := tcp.Config{Rank: i, Size: n, JobID: job, Secret: testSecret, Addrs: book, Logger: c.Logger}
		sc := shm.Config{JobID: job + "-" + hosts[i], Dir: dir, Logger: c.Logger}
		w, err := open(c, hosts, tc, func(e *tcp.Endpoint) { addrs[i] = e.Addr() }, sc)
		if err != nil {
			closeAll(ws[:i])
			return nil, fmt.Errorf("commtest: rank %d on host %q: %w", i, hosts[i], err)
		}
		ws[i] = w
	}
	close(ready)
	return ws, nil
}
