//go:build linux

package main

import (
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"
	"testing"
)

// TestBenchRail runs plexus bench rail --quick --json between two
// namespace hosts over a 1 Gbit and a 500 Mbit rail: every impl gives a
// row for each size it ran, or a note saying why it did not run; no case
// failed; every case that ran moved its bytes (counted by the receiver,
// and for openmpi by the program's rank 0), over both rails.
func TestBenchRail(t *testing.T) {
	rows := railRows(t)
	quick := newRailSizes(true)
	for _, impl := range append([]string{"ideal"}, railImpls...) {
		checkRailImpl(t, impl, rows, quick)
	}
}

// TestBenchRailLatency runs only the latency cases (--cases latency)
// of the plain TCP connection, blocking and spinning, and the plexus
// Link: only latency rows, a
// ping-pong and an aggregated one per quick size for each, every one
// with --iters messages (and the warm-up) moved.
func TestBenchRailLatency(t *testing.T) {
	rows := railRows(t, "--cases", "latency", "--iters", "200", "--impls", "tcp,tcppoll,plexus")
	quick := newRailSizes(true)
	count := map[string]int{}
	for _, r := range rows {
		if r.Bench != "latency" || strings.Contains(r.Note, "failed") {
			t.Errorf("row %+v: want latency rows only, none failed", r)
			continue
		}
		count[r.Impl]++
		checkRailRow(t, r)
		if want := int64(r.Size) * (200 + 200/10 + 1); r.Bytes != want { // --iters and the warm-up's tenth
			t.Errorf("%s latency of %d B, aggregated %v: rank 1 received %d bytes, want %d", r.Impl, r.Size, r.Aggregated, r.Bytes, want)
		}
	}
	for _, impl := range []string{"tcp", "tcppoll", "plexus"} {
		if count[impl] != 2*len(quick.lat) {
			t.Errorf("%s: %d rows, want %d", impl, count[impl], 2*len(quick.lat))
		}
	}
}

// TestBenchRailCompete runs the bandwidth cases with and without the
// competing flow (--compete) in two rounds (--runs 2) for a Link, MPTCP
// and Open MPI: every impl gives, for each quick size, a row without the
// flow and one with it, each the median of both rounds, each having moved
// its bytes; Open MPI's program marks its halfway point on its output
// without that line being taken for a row.
func TestBenchRailCompete(t *testing.T) {
	rows := railRows(t, "--cases", "bandwidth", "--compete", "--runs", "2", "--impls", "plexus,mptcp,openmpi")
	quick := newRailSizes(true)
	count := map[string]int{}
	for _, r := range rows {
		if r.Impl == "ideal" {
			continue
		}
		if r.Size == 0 && strings.Contains(r.Note, "not run") || strings.Contains(r.Note, "MPTCP") && r.Size == 0 {
			t.Logf("%s: %s", r.Impl, r.Note)
			count[r.Impl] = -1
			continue
		}
		if r.Bench != "bandwidth" || strings.Contains(r.Note, "failed") || r.Runs != 2 {
			t.Errorf("row %+v: want a bandwidth row over 2 runs, not failed", r)
			continue
		}
		checkRailRow(t, r)
		count[fmt.Sprintf("%s %v", r.Impl, r.Compete)]++
	}
	for _, impl := range []string{"plexus", "mptcp", "openmpi"} {
		if count[impl] == -1 {
			continue
		}
		for _, c := range []bool{false, true} {
			if n := count[fmt.Sprintf("%s %v", impl, c)]; n != len(quick.bw) {
				t.Errorf("%s, competing %v: %d rows, want %d", impl, c, n, len(quick.bw))
			}
		}
	}
}

// checkRailImpl checks impl's rows: either one note saying it did not
// run, or a row per quick size, each with its bytes moved.
func checkRailImpl(t *testing.T, impl string, rows []railRow, quick railSizes) {
	t.Helper()
	seen := map[string]int{}
	for _, r := range rows {
		if r.Impl != impl {
			continue
		}
		if strings.Contains(r.Note, "failed") {
			t.Errorf("%s %s at %d B failed: %s", impl, r.Bench, r.Size, r.Note)
			continue
		}
		if r.Size == 0 {
			if !strings.Contains(r.Note, "not run") {
				t.Errorf("%s: a row without a size or a reason: %+v", impl, r)
			}
			t.Logf("%s: %s", impl, r.Note)
			return
		}
		seen[fmt.Sprintf("%s %v", r.Bench, r.Aggregated)]++
		checkRailRow(t, r)
	}
	want := map[string]int{"bandwidth false": len(quick.bw), "latency false": len(quick.lat), "latency true": len(quick.lat)}
	switch impl {
	case "ideal":
		want = map[string]int{"bandwidth false": len(quick.bw)}
	case "openmpi":
		delete(want, "latency true")
	}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("%s: rows by bench and aggregation %v, want %v", impl, seen, want)
	}
}

func checkRailRow(t *testing.T, r railRow) {
	t.Helper()
	unit := map[string]string{"bandwidth": "Mbit/s", "latency": "us"}[r.Bench]
	if r.Rails != 2 || r.Unit != unit || !(r.Value > 0) {
		t.Errorf("row %+v: want 2 rails, unit %q, a positive value", r, unit)
	}
	if r.Impl == "ideal" {
		return
	}
	least := int64(r.Size)
	if r.Bench == "bandwidth" {
		least *= 4
	}
	if r.Bytes < least || r.Bytes%int64(r.Size) != 0 {
		t.Errorf("%s %s at %d B moved %d bytes, want whole messages, at least %d", r.Impl, r.Bench, r.Size, r.Bytes, least)
	}
}

// railRows runs plexus bench rail --quick --json, with extra flags,
// between two namespace hosts joined by rails of 1 Gbit and 500 Mbit,
// and returns its rows; it skips where the rails cannot be made.
func railRows(t *testing.T, extra ...string) []railRow {
	t.Helper()
	_, _, agent := twoHostJob(t, 2)
	if b, err := exec.Command(railsScript, "up", "h1", "h2", "1gbit", "500mbit").CombinedOutput(); err != nil {
		t.Skipf("cannot make rails: %v\n%s", err, b)
	}
	useBuiltRank(t)
	args := append([]string{"bench", "rail", "--host", "h1,h2", "--rsh", agent, "--rails", "10.252.0.0/16", "--quick", "--json"}, extra...)
	stdout, stderr, code := plexus(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	var rows []railRow
	if err := json.Unmarshal([]byte(stdout), &rows); err != nil {
		t.Fatalf("output is not a JSON array of rows: %v\n%s", err, stdout)
	}
	return rows
}
