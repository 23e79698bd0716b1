package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/kv/kvbench"
)

// TestBenchKVCompactBatch runs the in-process benches with --compact,
// --batch and --topology: the agree rows carry the acceptor's and the
// leader's busy time per decision, the impl names the tree; bad values
// are usage errors.
func TestBenchKVCompactBatch(t *testing.T) {
	out := mustRun(t, "bench", "kv", "--bench", "agree,kvlocal", "--duration", "200ms", "--replicas", "3",
		"--clients", "2", "--impl", "tree", "--compact", "16", "--batch", "4", "--topology", "binary", "--json")
	var rows []kvbench.Row
	if err := json.Unmarshal([]byte(out), &rows); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(rows) != 2 {
		t.Fatalf("%d rows, want agree and kvlocal:\n%s", len(rows), out)
	}
	for _, r := range rows {
		busy := r.AcceptorNs > 0 && r.LeaderNs > 0
		if r.OpsPerS <= 0 || busy != (r.Bench == "agree") || r.Impl != "tree-binary" {
			t.Errorf("implausible row %+v", r)
		}
	}
	for _, args := range [][]string{{"--compact", "-1"}, {"--batch", "0"}, {"--topology", "nope"}} {
		if _, errOut, code := plexus(t, append([]string{"bench", "kv", "--bench", "agree"}, args...)...); code != exitUsage || !strings.Contains(errOut, args[0]) {
			t.Errorf("bench kv %v: exit %d, want %d\n%s", args, code, exitUsage, errOut)
		}
	}
}

// TestBenchKVModel builds impl tree's tree on a given machine model
// (the 2x10 Smelt machine, replicas on its first CPUs, not pinned): the
// rows come out and a model that cannot be read is an error.
func TestBenchKVModel(t *testing.T) {
	out := mustRun(t, "bench", "kv", "--bench", "agree", "--duration", "100ms", "--replicas", "4",
		"--clients", "2", "--impl", "tree", "--model", model2x10, "--json")
	var rows []kvbench.Row
	if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 || rows[0].OpsPerS <= 0 {
		t.Fatalf("rows %+v, %v\n%s", rows, err, out)
	}
	if _, errOut, code := plexus(t, "bench", "kv", "--bench", "agree", "--duration", "100ms", "--model", "/nonexistent"); code == exitOK {
		t.Errorf("a missing model ran: exit %d\n%s", code, errOut)
	}
}

// TestBenchKVProfile: with --profile the agree rows split the
// acceptor's busy time (its broadcasts among it) and the leader's (its
// proposals, sent) by part; without it they do not.
func TestBenchKVProfile(t *testing.T) {
	for _, profile := range []bool{true, false} {
		args := []string{"bench", "kv", "--bench", "agree", "--duration", "200ms", "--replicas", "3", "--clients", "2", "--impl", "tree", "--json"}
		if profile {
			args = append(args, "--profile")
		}
		out := mustRun(t, args...)
		var rows []kvbench.Row
		if err := json.Unmarshal([]byte(out), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("rows %+v, %v\n%s", rows, err, out)
		}
		r := rows[0]
		if got := r.AcceptorParts["broadcast"] > 0 && r.LeaderParts["send"] > 0; got != profile {
			t.Errorf("--profile %v: acceptor parts %v, leader parts %v", profile, r.AcceptorParts, r.LeaderParts)
		}
		if r.BusiestNs < max(r.AcceptorNs, r.LeaderNs) || r.AllocsPerOp <= 0 {
			t.Errorf("--profile %v: busiest %v ns/op below the acceptor's %v or the leader's %v, or %v allocations/op",
				profile, r.BusiestNs, r.AcceptorNs, r.LeaderNs, r.AllocsPerOp)
		}
	}
}
