package main

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/bench"
)

func allreduceResult(impl, name string, ranks int, v float64) bench.P2PResult {
	return bench.P2PResult{Bench: name, Impl: impl, Ranks: ranks, Value: v}
}

// Each run's ratio is taken against that run's own Open MPI time, and the
// rows keep the order the algorithms first appear in.
func TestAllreduceRows(t *testing.T) {
	runs := [][]bench.P2PResult{
		{allreduceResult("plexus", "barrier", 2, 0.1), allreduceResult("plexus", "allreduce", 2, 0.2),
			allreduceResult("plexus", "allreduce-trees", 2, 0.3), allreduceResult("openmpi", "allreduce", 2, 0.4)},
		{allreduceResult("plexus", "allreduce", 2, 0.9), allreduceResult("plexus", "allreduce-trees", 2, 0.1),
			allreduceResult("openmpi", "allreduce", 2, 1.0)},
		{allreduceResult("plexus", "allreduce", 2, 0.5), allreduceResult("plexus", "allreduce-trees", 2, 0.2),
			allreduceResult("openmpi", "allreduce", 2, 0.5), allreduceResult("plexus", "allreduce", 4, 3)},
	}
	rows := allreduceRows(runs)
	if len(rows) != 3 {
		t.Fatalf("%d rows, want 3: %+v", len(rows), rows)
	}
	a, tr, four := rows[0], rows[1], rows[2]
	if a.name != "allreduce" || a.plexus != 0.5 || a.openmpi != 0.5 || a.paired != 0.9 || a.lo != 0.5 || a.hi != 1 {
		t.Errorf("allreduce row %+v: want medians 0.5 and 0.5, ratios 0.5, 0.9, 1", a)
	}
	if tr.name != "allreduce-trees" || tr.paired != 0.4 || tr.lo != 0.1 || math.Abs(tr.hi-0.75) > 1e-12 {
		t.Errorf("trees row %+v: want ratios 0.1, 0.4, 0.75", tr)
	}
	if four.ranks != 4 || four.pairedRuns != 0 || four.openmpi != 0 {
		t.Errorf("4-rank row %+v: want no Open MPI and no ratio", four)
	}
	var buf bytes.Buffer
	if err := writeAllreduceTable(&buf, rows); err != nil {
		t.Fatal(err)
	}
	if out := buf.String(); !strings.Contains(out, "allreduce-trees") || !strings.Contains(out, "0.10-0.75") {
		t.Errorf("table lacks the trees row or its range:\n%s", out)
	}
}

func TestBenchAllreduceUsage(t *testing.T) {
	for _, args := range [][]string{
		{"bench", "allreduce", "--runs", "0"},
		{"bench", "allreduce", "--ranks", "x"},
		{"bench", "allreduce", "--transport", "carrier-pigeon"},
	} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != exitUsage {
			t.Errorf("%v: exit %d, want %d; stderr %s", args, code, exitUsage, errb.String())
		}
	}
}
