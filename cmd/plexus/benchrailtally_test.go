package main

import "testing"

// TestRailTally: each case reports the median of its rounds, in the
// order the cases first came; a case that failed in any round reports
// that failure and is skipped in later rounds; cases differing only in
// competition or aggregation are kept apart.
func TestRailTally(t *testing.T) {
	tl := newRailTally()
	lat := func(impl string, size int, v float64) railRow {
		return railRow{Bench: "latency", Impl: impl, Size: size, Value: v, Unit: "us"}
	}
	bw := railRow{Bench: "bandwidth", Impl: "plexus", Size: 1 << 20, Value: 900, Unit: "Mbit/s"}
	bwc := bw
	bwc.Compete, bwc.Value = true, 700
	fail := railRow{Bench: "bandwidth", Impl: "openmpi", Unit: "Mbit/s", Note: "failed: no mpirun"}
	for _, r := range []railRow{lat("plexus", 4, 12), lat("openmpi", 4, 11), bw, bwc, fail,
		lat("plexus", 4, 10), lat("openmpi", 4, 15), bw, bwc,
		lat("plexus", 4, 20), lat("openmpi", 4, 13)} {
		if tl.skip(r) {
			if r.Impl != "openmpi" || r.Bench != "bandwidth" {
				t.Errorf("skip(%+v) = true, want false", r)
			}
			continue
		}
		tl.add(r)
	}
	if !tl.skip(railRow{Bench: "bandwidth", Impl: "openmpi", Unit: "Mbit/s"}) {
		t.Error("a failed case is not skipped")
	}
	got := tl.rows()
	want := []struct {
		impl    string
		compete bool
		value   float64
		runs    int
		note    string
	}{{"plexus", false, 12, 3, ""}, {"openmpi", false, 13, 3, ""}, {"plexus", false, 900, 2, ""}, {"plexus", true, 700, 2, ""}, {"openmpi", false, 0, 0, "failed: no mpirun"}}
	if len(got) != len(want) {
		t.Fatalf("%d rows, want %d: %+v", len(got), len(want), got)
	}
	for i, w := range want {
		g := got[i]
		if g.Impl != w.impl || g.Compete != w.compete || g.Value != w.value || g.Runs != w.runs || g.Note != w.note {
			t.Errorf("row %d = %+v, want %+v", i, g, w)
		}
	}
	if r := got[0].Rounds; len(r) != 3 || r[0] != 12 || r[1] != 10 || r[2] != 20 {
		t.Errorf("plexus's rounds = %v, want [12 10 20], in round order", r)
	}
	if r := got[4].Rounds; r != nil {
		t.Errorf("the failed case's rounds = %v, want none", r)
	}
}
