//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"testing"

	"github.com/plexus-hpc/plexus/bench"
)

// TestBenchP2PAutoHierarchy runs the collectives of plexus bench p2p on
// both implementations' default paths between two namespace hosts:
//
//	plexus bench p2p --hostfile F --rsh AGENT --quick --json --ranks 4 --cases coll \
//	    --transport auto --hierarchy [--peers --mpi-if eth0]
//
// Two ranks on each host: Plexus's rank 0 reaches rank 1 over shared
// memory and ranks 2 and 3 over TCP, and its collectives run in two
// levels; Open MPI (vader, tcp, self) measures the same cases.
func TestBenchP2PAutoHierarchy(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plexus and runs jobs on namespace hosts")
	}
	_, hostfile, agent := twoHostJob(t, 2)
	useBuiltRank(t)
	args := []string{"bench", "p2p", "--hostfile", hostfile, "--rsh", agent, "--quick", "--json", "--ranks", "4",
		"--cases", "coll", "--transport", "auto", "--hierarchy"}
	impls := []string{"plexus"}
	if err := bench.PeersMissing(); err == nil {
		args, impls = append(args, "--peers", "--mpi-if", "eth0"), append(impls, "openmpi")
	} else {
		t.Logf("Plexus alone: %v", err)
	}
	var out, errb bytes.Buffer
	if code := run(args, &out, &errb); code != exitOK {
		t.Fatalf("exit %d\n%s", code, errb.String())
	}
	var res []bench.P2PResult
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	if len(res) != 3*len(impls) {
		t.Errorf("%d rows, want barrier, bcast and allreduce of %v", len(res), impls)
	}
	for _, r := range res {
		if r.Ranks != 4 || r.Transport != "auto" || !slices.Equal(r.Hosts, []string{"h1", "h2"}) || r.Value <= 0 {
			t.Errorf("row %+v: want 4 ranks over auto on h1 and h2, a value", r)
		}
		plexus := r.Impl == "plexus"
		if plexus && (!slices.Equal(r.Via, []string{"self", "shm", "tcp", "tcp"}) || r.Levels != 2) {
			t.Errorf("plexus %s: via %v, %d levels; want self shm tcp tcp, 2", r.Bench, r.Via, r.Levels)
		}
	}
}
