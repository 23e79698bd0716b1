package commtest

import (
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/transport/shm"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// testSecret keys the jobs TCPWorlds makes; they listen on the loopback
// only and live as long as a test.
var testSecret = []byte("plexus commtest secret")

// TCPWorlds returns the n worlds of a job called job over TCP on the
// loopback, each made with cfg (its Rank and Size set per world); a nil
// cfg.Logger discards the transports' messages. On error the worlds made
// so far are closed.
func TCPWorlds(n int, job string, cfg comm.Config) ([]*comm.World, error) {
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
	ws := make([]*comm.World, n)
	for i := range ws {
		c := rankConfig(cfg, i, n)
		tc := tcp.Config{Rank: i, Size: n, JobID: job, Secret: testSecret, Addrs: book, Logger: c.Logger}
		w, err := TCP(c, tc, func(e *tcp.Endpoint) { addrs[i] = e.Addr() })
		if err != nil {
			closeAll(ws[:i])
			return nil, fmt.Errorf("commtest: rank %d: %w", i, err)
		}
		ws[i] = w
	}
	close(ready)
	return ws, nil
}

// SHMWorlds returns the n worlds of a job called job over shared memory,
// its segment in dir, each made with cfg (its Rank and Size set per
// world); a nil cfg.Logger discards the transport's messages. As with
// comm.Join, serialized worlds (cfg.Serialized) get passive endpoints,
// since every rank is local. On error the worlds made so far are closed.
func SHMWorlds(n int, job, dir string, cfg comm.Config) ([]*comm.World, error) {
	ws := make([]*comm.World, n)
	for i := range ws {
		c := rankConfig(cfg, i, n)
		w, err := SHM(c, shm.Config{Rank: i, Size: n, JobID: job, Dir: dir, Logger: c.Logger, Passive: c.Serialized})
		if err != nil {
			closeAll(ws[:i])
			return nil, fmt.Errorf("commtest: rank %d: %w", i, err)
		}
		ws[i] = w
	}
	return ws, nil
}

func rankConfig(cfg comm.Config, rank, n int) comm.Config {
	cfg.Rank, cfg.Size = rank, n
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	return cfg
}

func closeAll(ws []*comm.World) {
	for _, w := range ws {
		w.Close()
	}
}
