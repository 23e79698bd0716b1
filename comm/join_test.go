//go:build linux

package comm

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/launch"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// joinPair joins two ranks in this process, as two processes started by a
// launcher on one host would, with transport mode.
func joinPair(t *testing.T, mode string) [2]*World { return joinPairWith(t, mode, Config{}) }

// joinPairWith is joinPair with cfg.
func joinPairWith(t *testing.T, mode string, cfg Config) [2]*World {
	t.Helper()
	ctx := testCtx(t)
	job := fmt.Sprintf("comm-join-test-%d-%s", time.Now().UnixNano(), mode)
	var ws [2]*World
	var errs [2]error
	var wg sync.WaitGroup
	for r := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			info := launch.Info{Rank: r, Size: 2, LocalRank: r, LocalSize: 2, Launcher: launch.Plexus, JobID: job}
			ws[r], errs[r] = join(ctx, cfg, info, mode)
		}()
	}
	wg.Wait()
	for r, err := range errs {
		if err != nil {
			t.Fatalf("rank %d: %v", r, err)
		}
	}
	t.Cleanup(func() { ws[0].Close(); ws[1].Close() })
	exchangeOnce(t, ctx, ws[0], ws[1])
	return ws
}

// TestJoinTransport checks the transport each mode gives two ranks on
// one host.
func TestJoinTransport(t *testing.T) {
	for _, mode := range []string{TransportAuto, TransportSHM} {
		ws := joinPair(t, mode)
		for r, w := range ws {
			m, ok := w.t.(*mux)
			if !ok || m.routes.Load().index[1-r] < 0 {
				t.Errorf("mode %s, rank %d: transport %T does not reach the other rank over shared memory", mode, r, w.t)
			}
		}
	}
	for r, w := range joinPair(t, TransportTCP) {
		if _, ok := w.t.(*tcp.Endpoint); !ok {
			t.Errorf("mode tcp, rank %d: transport %T", r, w.t)
		}
	}
}

// TestJoinDirectAndSerialized: ranks that all share a host send and poll
// through shared memory without the mux in between, and a Serialized
// world is serialized then; over TCP it is not.
func TestJoinDirectAndSerialized(t *testing.T) {
	for _, serialized := range []bool{false, true} {
		for r, w := range joinPairWith(t, TransportAuto, Config{Serialized: serialized}) {
			if _, ok := w.eagerT.(shmSignaller); !ok {
				t.Errorf("serialized %v, rank %d: eager sends through %T, not shared memory directly", serialized, r, w.eagerT)
			}
			if _, ok := w.until.(shmSignaller); !ok {
				t.Errorf("serialized %v, rank %d: polls through %T", serialized, r, w.until)
			}
			if w.Serialized() != serialized {
				t.Errorf("rank %d: Serialized() %v, asked %v", r, w.Serialized(), serialized)
			}
		}
	}
	for r, w := range joinPairWith(t, TransportTCP, Config{Serialized: true}) {
		if w.Serialized() {
			t.Errorf("rank %d: serialized over TCP", r)
		}
	}
}

func TestTransportMode(t *testing.T) {
	env := func(v string) func(string) string {
		return func(k string) string {
			if k == "PLEXUS_TRANSPORT" {
				return v
			}
			return ""
		}
	}
	for _, c := range []struct{ cfg, env, want string }{
		{"", "", TransportAuto}, {"", "tcp", TransportTCP}, {"", " shm ", TransportSHM},
		{"shm", "tcp", TransportSHM}, {"auto", "tcp", TransportAuto}, {"", "udp", "error"}, {"tcp6", "", "error"},
	} {
		got, err := transportMode(c.cfg, env(c.env))
		if err != nil {
			got = "error"
		}
		if got != c.want {
			t.Errorf("config %q, PLEXUS_TRANSPORT=%q: %s (%v), want %s", c.cfg, c.env, got, err, c.want)
		}
	}
}

func TestReadCards(t *testing.T) {
	hosts, addrs, pids, err := readCards([]string{card("h1", "127.0.0.1:5", 7), card("h2", "[::1]:6", 8)})
	if err != nil || hosts[1] != "h2" || addrs[1] != "[::1]:6" || pids[1] != 8 {
		t.Errorf("%q %q %v %v", hosts, addrs, pids, err)
	}
	for _, bad := range []string{"127.0.0.1:5", " 127.0.0.1:5", "h ", "h 127.0.0.1:5", "h 127.0.0.1:5 0", "h 127.0.0.1:5 x", "h 127.0.0.1:5 1 2"} {
		if _, _, _, err := readCards([]string{bad}); err == nil {
			t.Errorf("card %q accepted", bad)
		}
	}
}
