package bench

import (
	"strings"
	"testing"
)

// pair is one case measured by both implementations.
func pair(bench string, ranks, size int, plexus, openmpi float64) []P2PResult {
	r := P2PResult{Bench: bench, Ranks: ranks, Size: size, Goroutines: 1}
	p, o := r, r
	p.Impl, p.Value = "plexus", plexus
	o.Impl, o.Value = "openmpi", openmpi
	return []P2PResult{p, o}
}

// fullRun has every case a target reads, with two latency sizes, two
// barrier job sizes (4 ranks first) and a plexus-only _mt row.
func fullRun() []P2PResult {
	var res []P2PResult
	for _, p := range [][]P2PResult{
		pair("latency", 2, 8, 1.1, 1), pair("latency", 2, 1, 3, 1),
		pair("bandwidth", 2, 1<<20, 850, 1000), pair("bandwidth", 2, 8, 1, 100),
		pair("msgrate", 2, 8, 5e6, 1e6),
		pair("barrier", 4, 0, 10, 1), pair("barrier", 2, 0, 1.1, 1),
	} {
		res = append(res, p...)
	}
	return append(res, P2PResult{Bench: "latency_mt", Impl: "plexus", Ranks: 2, Size: 8, Goroutines: 10, Value: 9})
}

func TestP2PTargetsPerTransport(t *testing.T) {
	for _, tc := range []struct {
		transport string
		want      []string
	}{
		{"tcp", []string{
			"latency at 1 B: plexus/openmpi 3.00, want ≤ 1.2: not met",
			"message rate, 8 B: plexus/openmpi 5.00, want ≥ 10: not met",
			"bandwidth at 1 MiB: plexus/openmpi 0.85, want ≥ 0.9: not met",
		}},
		{"shm", []string{
			"latency at 1 B: plexus/openmpi 3.00, want ≤ 1.2: not met",
			"bandwidth at 1 MiB: plexus/openmpi 0.85, want ≥ 0.8: met",
			"barrier, 2 ranks: plexus/openmpi 1.10, want ≤ 1.2: met",
			"message rate, 8 B: plexus/openmpi 5.00, want ≥ 1: met",
		}},
		{"carrier-pigeon", nil},
	} {
		var got []string
		for _, tg := range P2PTargets(tc.transport, fullRun()) {
			got = append(got, tg.String())
		}
		if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
			t.Errorf("%s:\n%s\nwant\n%s", tc.transport, strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
		}
	}
}

// TestP2PTargetsPartial: a target whose case one side did not measure is
// left out, not reported as 0.
func TestP2PTargetsPartial(t *testing.T) {
	res := append(pair("latency", 2, 8, 1, 1), P2PResult{Bench: "barrier", Impl: "plexus", Ranks: 2, Value: 3})
	tg := P2PTargets("shm", res)
	if len(tg) != 1 || tg[0].Name != "latency at 8 B" || !tg[0].Met() {
		t.Errorf("%+v", tg)
	}
}

func TestWriteP2PTableTargets(t *testing.T) {
	res := fullRun()
	for i := range res {
		res[i].Transport = "shm"
	}
	var b strings.Builder
	if err := WriteP2PTable(&b, res); err != nil {
		t.Fatal(err)
	}
	if out := b.String(); strings.Count(out, "target: ") != 4 || !strings.Contains(out, "target: barrier, 2 ranks") ||
		strings.Contains(out, "want ≥ 10") {
		t.Errorf("shm table:\n%s", out)
	}
}

// TestPairedRatios: when the machine changes speed between runs, the
// ratio of the two medians can compare runs in different states, the
// median of each run's own ratio does not. Here both sides are three
// times slower in their last runs, Plexus from run 3 and Open MPI from
// run 4: the medians say 3×, every run but one says 1×.
func TestPairedRatios(t *testing.T) {
	var all []P2PResult
	plexus, openmpi := []float64{1, 1, 3, 3, 3}, []float64{1, 1, 1, 3, 3}
	for run := range plexus {
		all = append(all, pair("latency", 2, 1, plexus[run], openmpi[run])...)
		all = append(all, P2PResult{Bench: "latency_mt", Impl: "plexus", Ranks: 2, Size: 8, Goroutines: 10, Value: 9})
	}
	paired := pairedRatios(all)
	if got := paired[caseKey{"latency", 2, 1, 1}]; got != 1 {
		t.Errorf("paired ratio %v, want 1", got)
	}
	if _, ok := paired[caseKey{"latency_mt", 2, 8, 10}]; ok {
		t.Error("a paired ratio for a case Open MPI did not measure")
	}
	med := medians(all)
	if r := pairUp(med)[0].ratio(); r != 3 {
		t.Errorf("ratio of the medians %v, want 3 (the case for pairing)", r)
	}
}

// TestP2PTargetPairedDecides: the paired ratio, when there is one, gives
// the verdict, and both ratios are shown.
func TestP2PTargetPairedDecides(t *testing.T) {
	tg := P2PTarget{Name: "latency at 1 B", Ratio: 3, Paired: 1, Max: true, Limit: 1.2}
	if want := "latency at 1 B: plexus/openmpi 3.00, paired 1.00, want ≤ 1.2: met"; tg.String() != want {
		t.Errorf("%s, want %s", tg, want)
	}
	tg.Paired = 0
	if tg.Met() {
		t.Error("met by the ratio of the medians, 3, want ≤ 1.2")
	}
	res := append(pair("bandwidth", 2, 1<<20, 700, 1000), pair("latency", 2, 1, 1, 1)...)
	for i := range res {
		res[i].Transport = "shm"
	}
	res[0].Paired, res[1].Paired = 0.85, 0.85
	var buf strings.Builder
	if err := WriteP2PTable(&buf, res); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	header := strings.SplitN(out, "\n", 2)[0]
	if !strings.HasSuffix(strings.TrimSpace(header), "paired") ||
		!strings.Contains(out, "target: bandwidth at 1 MiB: plexus/openmpi 0.70, paired 0.85, want ≥ 0.8: met") ||
		!strings.Contains(out, "target: latency at 1 B: plexus/openmpi 1.00, want ≤ 1.2: met") {
		t.Errorf("table:\n%s", out)
	}
}
