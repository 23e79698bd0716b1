package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/hwloc"
	"github.com/plexus-hpc/plexus/topo/load"
	"github.com/plexus-hpc/plexus/tree"
)

var tourCmd = &command{
	name:    "tour",
	summary: "model this machine and two shipped ones, build and compare every tree",
	usage: `tour [--data DIR]

Discovers this machine from /sys, measures its pairwise send/receive
costs (a quick run of 'plexus machine measure'; estimated from the topology
when that is not possible), prints its summary and the comparison of every
tree topology on all its CPUs (topologies that build trees of the same
latencies share a row), then runs the collectives on its trees with pinned
goroutines beside Go's own primitives, pinned and as Go programs run them,
and shows the measured table (a quick 'plexus bench coll'); then does the
same, without running anything, for two machines shipped in the repository:
the measured Smelt 2x10 Intel Xeon E5 v2 and a 2-socket AMD Epyc 7451 from
an hwloc topology (costs estimated). Run it from the repository root, or
give the data directory with --data. Last it starts a 2-rank job on this
machine, as plexus run does, on the transport such a job gets by default
(shared memory on Linux), and shows its ping-pong latency, bandwidth,
message rate and collectives beside Open MPI's when mpirun and mpicc are
installed (a short 'plexus bench p2p --peers').`,
	flags: func() *flag.FlagSet { return new(tourOpts).flagSet() },
	run:   runTour,
}

type tourOpts struct{ data string }

func (o *tourOpts) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("tour", flag.ContinueOnError)
	fs.StringVar(&o.data, "data", "data", "the repository's data `DIR`")
	return fs
}

// The shipped machines the tour shows, relative to the data directory.
const (
	tourSmelt = "smelt/machinedb/intel_xeon_e5_v2_2x10"
	tourHwloc = "hwloc/x86-AMD-17h-Zen-2xEpyc-7451.xml"
)

// tourStop is one machine of the tour.
type tourStop struct {
	title string
	note  string
	open  func() (*topo.Model, error)
	// live runs the collectives on the machine itself (this machine only).
	live bool
}

func runTour(c *cli, args []string) error {
	o := new(tourOpts)
	if err := c.parse(o.flagSet(), args); err != nil {
		return err
	}
	// Check the shipped data first: failing after the local part would
	// waste the user's time and hide the one thing to fix.
	for _, p := range []string{tourSmelt, tourHwloc} {
		_, err := os.Stat(filepath.Join(o.data, p))
		if errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("%s not found: run plexus tour from the repository root (or give --data DIR)", filepath.Join(o.data, p))
		}
		if err != nil {
			return fmt.Errorf("the tour's data: %w", err)
		}
	}
	stops := []tourStop{
		{"this machine", "Costs measured now by a quick pairwise benchmark (plexus machine measure --quick).",
			measuredLocal(c.stderr), true},
		{"Smelt's measured 2x10 Intel Xeon E5-2670 v2", "Costs measured by Smelt's pairwise benchmark.",
			func() (*topo.Model, error) { return load.Open(filepath.Join(o.data, tourSmelt)) }, false},
		{"2-socket AMD Epyc 7451 (hwloc topology)", "Costs estimated from the topology.",
			func() (*topo.Model, error) {
				return hwloc.ReadFile(filepath.Join(o.data, tourHwloc), hwloc.Options{})
			}, false},
	}
	failed := 0
	for i, s := range stops {
		if err := tourOne(c.stdout, i+1, s); err != nil {
			// One machine failing (no /sys off Linux) should not hide
			// the others.
			fmt.Fprintf(c.stderr, "plexus tour: %s: %v\n", s.title, err)
			failed++
		}
	}
	if failed == len(stops) {
		return errors.New("no machine could be shown")
	}
	if err := tourRanks(c.stdout, len(stops)+1); err != nil {
		fmt.Fprintf(c.stderr, "plexus tour: 2-rank job: %v\n", err)
		failed++
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d sections failed (said above)", failed, len(stops)+1)
	}
	return nil
}

func tourOne(w io.Writer, n int, s tourStop) error {
	start := time.Now()
	fmt.Fprintf(w, "%s\n== %d. %s\n%s\n\n", rule, n, s.title, s.note)
	m, err := s.open()
	if err != nil {
		return err
	}
	if err := withCosts(m); err != nil {
		return err
	}
	writeMachine(w, m)
	rows, err := tree.Compare(m, nil, tree.AutoRoot)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "\nevery topology on all %d CPUs\n", m.N())
	if err := writeCompareTable(w, rows); err != nil {
		return err
	}
	if s.live {
		if err := tourBench(w, m); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "\n(%s in %s)\n\n", m.Name, time.Since(start).Round(time.Millisecond))
	return nil
}

const rule = "================================================================"
