package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/plexus-hpc/plexus/bench"
)

// tourRanks starts a 2-rank job on this machine as plexus run starts one,
// on the transport such a job gets by default, and shows its ping-pong,
// bandwidth, message rate and collectives beside Open MPI's programs
// (bench/peers under mpirun) when Open MPI is installed: one short plexus
// bench p2p --peers. Without Open MPI, or when its run fails, Plexus runs
// alone and the output says why the openmpi column is empty.
func tourRanks(w io.Writer, n int) error {
	start := time.Now()
	tr, words := localTransport(os.Getenv)
	fmt.Fprintf(w, "%s\n== %d. a 2-rank job on this machine (%s)\n"+
		"Two processes started as plexus run starts them, bootstrapped through rank 0, talking over\n"+
		"%s, the transport comm.Join picks for ranks on one host; beside them Open MPI's\n"+
		"programs of bench/peers under mpirun on its own %s; one run of each case\n"+
		"(plexus bench p2p --transport %s --peers for medians of several and the targets).\n\n",
		rule, n, words, words, words, tr)
	rank, err := selfRank("p2p") // the ranks run from this binary, wherever it is
	if err != nil {
		return err
	}
	cfg := bench.P2PConfig{Transport: tr, Ranks: []int{2}, Sizes: []int{8}, Runs: 1, Log: io.Discard, Rank: rank}
	missing := bench.PeersMissing()
	cfg.Peers = missing == nil
	res, err := bench.P2P(context.Background(), cfg)
	if err != nil && cfg.Peers {
		missing, cfg.Peers = fmt.Errorf("its run failed: %v", err), false
		res, err = bench.P2P(context.Background(), cfg)
	}
	if err != nil {
		return err
	}
	if err := bench.WriteP2PSummary(w, res); err != nil {
		return err
	}
	if missing != nil {
		fmt.Fprintf(w, "openmpi: not run: %v\n", missing)
	}
	fmt.Fprintf(w, "\n(2-rank job in %s)\n", time.Since(start).Round(time.Millisecond))
	return nil
}

// localTransport is the transport comm.Join uses when every rank is on
// this host and no Config says otherwise: PLEXUS_TRANSPORT when it names
// one, else what auto picks, shared memory on Linux and TCP elsewhere.
func localTransport(getenv func(string) string) (name, words string) {
	name = strings.TrimSpace(getenv("PLEXUS_TRANSPORT"))
	if name != "tcp" && name != "shm" {
		name = "tcp"
		if runtime.GOOS == "linux" {
			name = "shm"
		}
	}
	if name == "shm" {
		return name, "shared memory"
	}
	return name, "TCP loopback"
}
