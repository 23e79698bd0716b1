package comm

import (
	"cmp"

	"github.com/plexus-hpc/plexus/comm/internal/testhook"
	"github.com/plexus-hpc/plexus/transport/shm"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// init hands package comm/commtest worlds on pretend hosts: the mux Join
// builds, routed by host names the test gives rather than the ones the
// ranks' machines report.
func init() {
	testhook.Hosts = func(cfg Config, hosts []string, tc tcp.Config, ready func(*tcp.Endpoint), sc shm.Config) (*World, error) {
		tc.Logger = cmp.Or(tc.Logger, cfg.Logger)
		sc.Logger = cmp.Or(sc.Logger, cfg.Logger)
		local := func(rank, size int) opener {
			c := sc
			c.Rank, c.Size = rank, size
			return openSHM(c)
		}
		mode := TransportAuto
		if sc.Dir == "" { // TCP alone, as Join with TransportTCP, but routed by the mux
			local, mode = nil, TransportTCP
		}
		m := newMux(muxConfig{Rank: cfg.Rank, Size: cfg.Size, Remote: openTCP(tc, ready), Local: local})
		w, err := openWorld(cfg, m.Open)
		if err != nil {
			return nil, err
		}
		w.hosts = hosts
		w.via = transports(cfg.Rank, hosts, mode)
		if err := m.Route(hosts); err != nil {
			w.Close()
			return nil, err
		}
		w.adoptDirect()
		w.adoptSerial()
		return w, nil
	}
}
