package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/plexus-hpc/plexus/internal/jobtest"
)

// bin holds the plexus command and this example, built once.
var bin = jobtest.Binaries{Pkgs: []string{"../../cmd/plexus", "."}}

func TestMain(m *testing.M) {
	code := m.Run()
	bin.Remove()
	os.Exit(code)
}

// These tests run the example as a real job of several processes under
// plexus run, as examples/examples_test.go runs the other examples.

// TestLoopAndTree: an unbalanced loop covers every index exactly once
// with steals between processes, and a tree of tasks spawned across
// ranks finishes before any rank's Wait returns.
func TestLoopAndTree(t *testing.T) {
	out := runJob(t, 3, "-n", "3000", "-depth", "10")
	mustContain(t, out, "ParallelFor over 3000 indices on 3 ranks: every index ran exactly once; ranks stole")
	mustContain(t, out, "a tree of 2047 tasks spawning tasks across 3 ranks finished before every Wait returned")
}

// TestLostRank: a rank that exits in the middle of a group makes the
// others' Wait fail with comm.ErrPeerLost, for the master and another.
func TestLostRank(t *testing.T) {
	for _, lose := range []int{0, 2} {
		t.Run(fmt.Sprintf("lose=%d", lose), func(t *testing.T) {
			out := runJob(t, 3, "-lose", fmt.Sprint(lose))
			for r := range 3 {
				if r != lose {
					mustContain(t, out, fmt.Sprintf("rank %d: Wait failed with comm.ErrPeerLost when rank %d died", r, lose))
				}
			}
		})
	}
}

// runJob builds cmd/plexus and this example, runs the example under
// plexus run with n ranks, and returns the ranks' output with the
// "[rank] " prefixes removed.
func runJob(t *testing.T, n int, args ...string) string {
	t.Helper()
	return bin.RunPlexus(t, n, []string{"GORACE=atexit_sleep_ms=0"}, "task", args...)
}

var mustContain = jobtest.MustContain
