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
