package main

import (
	"strings"
	"testing"
)

// TestCompareMergesEqualRows: on two CPUs every topology builds the same
// one-edge tree, so the table shows one row and names the others.
func TestCompareMergesEqualRows(t *testing.T) {
	out := mustRun(t, "tree", "compare", "--model", model2x10, "--cpus", "0,1")
	wantAll(t, "compare on 2 CPUs", out, "     adaptive   ", "best static  binary",
		"the same latencies as adaptive: best, binary, fibonacci, sequential, mst, cluster, bad, adaptive-base\n")
	if n := strings.Count(out, "\n         bad "); n != 0 {
		t.Errorf("a merged row is still shown:\n%s", out)
	}
	out = mustRun(t, "tree", "compare", "--model", model2x10, "--cpus", "0-3")
	wantAll(t, "compare on 4 CPUs", out, "the same latencies as binary: fibonacci, mst\n", "\n          bad ")
}
