//go:build linux

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	"github.com/plexus-hpc/plexus/bench"
)

// TestBenchP2POnTwoHosts runs plexus bench p2p between two namespace
// hosts, as on a cluster:
//
//	plexus bench p2p --hostfile F --rsh AGENT --quick --json [--peers --mpi-if eth0]
//
// with two slots on h1 and two on h2: the point-to-point cases run one
// rank on each host, the collectives 2 ranks (one each) and 4 ranks (two
// each). With mpicc and mpirun here Open MPI runs the same cases, its
// mpirun on h1 through the agent, and every case has both rows.
func TestBenchP2POnTwoHosts(t *testing.T) {
	if testing.Short() {
		t.Skip("builds plexus and runs jobs on namespace hosts")
	}
	_, hostfile, agent := twoHostJob(t, 2)
	useBuiltRank(t)
	args := []string{"bench", "p2p", "--hostfile", hostfile, "--rsh", agent, "--quick", "--json", "--sizes", "1,1048576"}
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
	checkHostRows(t, res, impls)
}

// hostCases are the rows a run between two hosts reports per
// implementation: bench/ranks/size.
var hostCases = []string{"latency/2/1", "latency/2/1048576", "bandwidth/2/1", "bandwidth/2/1048576", "msgrate/2/8",
	"barrier/2/0", "bcast/2/8", "allreduce/2/8", "barrier/4/0", "bcast/4/8", "allreduce/4/8"}

// checkHostRows checks that res has each of hostCases once per impl, each
// measured over TCP between h1 and h2, and nothing else.
func checkHostRows(t *testing.T, res []bench.P2PResult, impls []string) {
	t.Helper()
	seen := map[string]int{}
	for _, r := range res {
		key := fmt.Sprintf("%s %s/%d/%d", r.Impl, r.Bench, r.Ranks, r.Size)
		seen[key]++
		if !slices.Contains(impls, r.Impl) || !slices.Contains(hostCases, key[len(r.Impl)+1:]) {
			t.Errorf("unexpected row %+v", r)
		}
		if !slices.Equal(r.Hosts, []string{"h1", "h2"}) || r.Transport != "tcp" || r.Value <= 0 || r.Note != "" {
			t.Errorf("row %s: hosts %v, transport %s, value %g, note %q; want h1 and h2, tcp, a value, no note",
				key, r.Hosts, r.Transport, r.Value, r.Note)
		}
	}
	for _, impl := range impls {
		for _, c := range hostCases {
			if n := seen[impl+" "+c]; n != 1 {
				t.Errorf("%s %s: %d rows, want 1", impl, c, n)
			}
		}
	}
}
