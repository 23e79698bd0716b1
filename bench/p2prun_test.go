package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"testing"
	"time"
)

// p2pKinds are the benches every P2P run reports.
var p2pKinds = []string{"latency", "bandwidth", "msgrate", "barrier", "bcast", "allreduce"}

func runP2P(t *testing.T, transport string, peers bool) []P2PResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var log bytes.Buffer
	res, err := P2P(ctx, P2PConfig{Transport: transport, Quick: true, Ranks: []int{2}, Sizes: []int{1, 4096}, Peers: peers, Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	var buf bytes.Buffer
	if err := WriteP2PJSON(&buf, res); err != nil || !json.Valid(buf.Bytes()) {
		t.Fatalf("JSON %v:\n%s", err, buf.String())
	}
	return res
}

// checkKinds demands every bench kind from impl over transport, with sane
// fields.
func checkKinds(t *testing.T, res []P2PResult, impl, transport string) {
	t.Helper()
	seen := map[string]bool{}
	for _, r := range res {
		if r.Impl != impl {
			continue
		}
		seen[r.Bench] = true
		if r.Value <= 0 || r.Ranks != 2 || r.Transport != transport || r.Unit != Unit(r.Bench) {
			t.Errorf("%+v", r)
		}
	}
	for _, k := range p2pKinds {
		if !seen[k] {
			t.Errorf("no %s result from %s", k, impl)
		}
	}
}

func TestP2PPlexus(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a job")
	}
	res := runP2P(t, "tcp", false)
	checkKinds(t, res, "plexus", "tcp")
	if n := len(res); n != 2+2+1+3 {
		t.Errorf("%d results, want 8: %+v", n, res)
	}
}

func TestP2PPeers(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	for _, tool := range []string{"mpicc", "mpirun"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not found", tool)
		}
	}
	for _, transport := range []string{"tcp", "shm"} {
		t.Run("transport="+transport, func(t *testing.T) {
			res := runP2P(t, transport, true)
			checkKinds(t, res, "plexus", transport)
			checkKinds(t, res, "openmpi", transport)
			if len(P2PTargets(transport, res)) != map[string]int{"tcp": 2, "shm": 3}[transport] { // no 1 MiB bandwidth case here; shm adds the barrier
				t.Errorf("targets: %v", P2PTargets(transport, res))
			}
		})
	}
}

// TestP2PSHM runs the Plexus side over shared memory.
func TestP2PSHM(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a job")
	}
	res := runP2P(t, "shm", false)
	checkKinds(t, res, "plexus", "shm")
	if n := len(res); n != 2+2+1+3 {
		t.Errorf("%d results, want 8: %+v", n, res)
	}
}

// TestP2PGoroutines runs a tiny goroutine sweep, the multi-goroutine
// cases alone, over both transports; Peers shows that Open MPI sits them
// out.
func TestP2PGoroutines(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs jobs")
	}
	for _, transport := range []string{"tcp", "shm"} {
		t.Run("transport="+transport, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			var log bytes.Buffer
			cfg := P2PConfig{Transport: transport, Quick: true, Ranks: []int{2}, Goroutines: []int{1, 10},
				Cases: MTBenches(), Peers: true, Log: &log}
			res, err := P2P(ctx, cfg)
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			checkMT(t, res, transport)
		})
	}
}

func checkMT(t *testing.T, res []P2PResult, transport string) {
	t.Helper()
	want := map[string]bool{"latency_mt/1": true, "latency_mt/10": true, "msgrate_mt/1": true, "msgrate_mt/10": true}
	for _, r := range res {
		key := fmt.Sprintf("%s/%d", r.Bench, r.Goroutines)
		if !want[key] || r.Impl != "plexus" || r.Transport != transport || r.Size != MTSize || r.Value <= 0 ||
			r.Iters != MTIters(20, r.Goroutines) || r.Unit != Unit(r.Bench) {
			t.Errorf("%+v", r)
		}
		delete(want, key)
	}
	if len(want) != 0 {
		t.Errorf("missing %v in %+v", want, res)
	}
}
