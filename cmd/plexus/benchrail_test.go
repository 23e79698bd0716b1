package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
	"github.com/plexus-hpc/plexus/transport/multirail"
)

// TestRowCollector: rank 0's marked lines become rows, whatever the
// pieces the output arrives in; every other line goes on unchanged.
func TestRowCollector(t *testing.T) {
	out := "[1] hello\n[0] " + railRowMark + `{"bench":"bandwidth","impl":"plexus","rails":2,"size":1048576,"value":1400.5,"unit":"Mbit/s","bytes":16777216}` +
		"\n[0] " + railRowMark + "{not json\n[0] last"
	var w bytes.Buffer
	c := newRowCollector(&w)
	for i := 0; i < len(out); i += 7 {
		c.Write([]byte(out[i:min(i+7, len(out))]))
	}
	c.Flush()
	if len(c.rows) != 1 || c.rows[0].Impl != "plexus" || c.rows[0].Value != 1400.5 || c.rows[0].Bytes != 16<<20 || c.rows[0].Rails != 2 {
		t.Fatalf("rows %+v", c.rows)
	}
	if want := "[1] hello\n[0] " + railRowMark + "{not json\n[0] last\n"; w.String() != want {
		t.Errorf("passed on %q, want %q", w.String(), want)
	}
}

// TestRailRatios checks the ratios against hand-computed values: the
// worst size, the geometric mean, the verdict, and that a target whose
// impls did not both run is left out.
func TestRailRatios(t *testing.T) {
	bw := func(impl string, size int, v float64, compete bool) railRow {
		return railRow{Bench: "bandwidth", Impl: impl, Size: size, Value: v, Unit: "Mbit/s", Compete: compete}
	}
	rows := []railRow{
		bw("ideal", 64<<10, 1000, false), bw("plexus", 64<<10, 100, false), // below 1 MiB: not counted
		bw("ideal", 1<<20, 1400, false), bw("plexus", 1<<20, 1400, false),
		bw("ideal", 8<<20, 1500, false), bw("plexus", 8<<20, 1350, false),
		bw("iso", 1<<20, 1000, false), bw("iso", 8<<20, 1000, false),
		bw("weighted", 1<<20, 1000, true), bw("plexus", 1<<20, 1200, true),
		{Bench: "latency", Impl: "plexus", Size: 4, Value: 50, Unit: "us"}, {Bench: "latency", Impl: "openmpi", Size: 4, Value: 40, Unit: "us"},
		{Bench: "latency", Impl: "plexus", Size: 4, Value: 1, Unit: "us", Aggregated: true}, // no target: left out
	}
	got := strings.Join(railRatios(rows), "\n")
	for _, want := range []string{
		"plexus of the rails' sampled sum, from 1 MiB: worst 0.900 at 8 MiB, mean 0.949 over 2 sizes; target >= 0.97: NOT met",
		"plexus over iso (rails 2x apart), from 1 MiB: worst 1.350 at 8 MiB, mean 1.375 over 2 sizes; target >= 1.15: met",
		"plexus over weighted, competing flow, from 1 MiB: worst 1.200 at 1 MiB, mean 1.200 over 1 sizes; target >= 1.10: met",
		"plexus over openmpi (latency): worst 0.800 at 4 B, mean 0.800 over 1 sizes; target >= 1.00: NOT met",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("ratios lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "over openmpi,") || strings.Count(got, "\n") != 3 {
		t.Errorf("want exactly the four targets whose impls ran:\n%s", got)
	}
	if got := railRatios(nil); len(got) != 1 || !strings.HasPrefix(got[0], "none") {
		t.Errorf("no rows: %q", got)
	}
}

// TestBenchRailUsage: bad impls, hosts and networks are usage errors,
// before any job starts.
func TestBenchRailUsage(t *testing.T) {
	hostfile := filepath.Join(t.TempDir(), "hosts")
	for _, args := range [][]string{
		{"--host", "h1,h2", "--impls", "single,nope"},
		{"--host", "h1,h2", "--impls", ","},
		{"--host", "h1,h2", "--rails", "10.0.0.0/99"},
		{"--impls", "plexus"},
		{"--host", "h1", "--impls", "plexus"},
		{"--host", "h1,h2", "--hostfile", hostfile},
		{"--host", "h1,h2", "--cases", "latency,nope"},
		{"--host", "h1,h2", "--cases", ","},
		{"--host", "h1,h2", "--iters", "-1"},
		{"--host", "h1,h2", "--timeout", "-1s"},
	} {
		if _, errOut, code := plexus(t, append([]string{"bench", "rail"}, args...)...); code != exitUsage {
			t.Errorf("bench rail %s: exit %d, want %d\n%s", strings.Join(args, " "), code, exitUsage, errOut)
		}
	}
}

// TestRailSizes: the quick sizes are a subset of the full ones, each
// bandwidth case moves at least four messages, and the competing flow
// stops when the first half of a case's messages (rounded up) are
// through.
func TestRailSizes(t *testing.T) {
	full, quick := newRailSizes(false), newRailSizes(true)
	if len(full.bw) != 11 || full.bw[0] != 64<<10 || full.bw[10] != 64<<20 || len(full.lat) != 6 || full.lat[5] != 4096 {
		t.Errorf("full sizes %v %v", full.bw, full.lat)
	}
	for _, s := range quick.bw {
		if !containsInt(full.bw, s) {
			t.Errorf("quick size %d not among the full ones", s)
		}
	}
	if w := window(64 << 10); w != 64 {
		t.Errorf("window(64 KiB) = %d, want 64", w)
	}
	if w := window(64 << 20); w != 2 {
		t.Errorf("window(64 MiB) = %d, want 2", w)
	}
	p, err := rail.NewProfile("r", []rail.Sample{{Size: 1 << 20, Time: 10 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	for n, want := range map[int]int{1: 1, 2: 1, 4: 2, 5: 3, 2048: 1024} {
		if got := halfOf(n); got != want {
			t.Errorf("halfOf(%d) = %d, want %d", n, got, want)
		}
		h := halfway{n: n}
		for i := 1; i <= n; i++ {
			if h.step() != (i == want) {
				t.Errorf("halfway of %d: step %d said %v", n, i, i != want)
			}
		}
	}
	if k := fastest([]rail.Profile{p, p, {Samples: []rail.Sample{{Size: 1 << 20, Time: time.Millisecond}}}}); k != 2 {
		t.Errorf("fastest = %d, want 2", k)
	}
}

// TestRailCases: --cases keeps only the benches named, --iters sets the
// latency cases' round trips, and tcp is an impl --impls may add though
// it is not run by default.
func TestRailCases(t *testing.T) {
	z := (&benchRailOpts{cases: "latency", iters: 50, quick: true}).railSizes()
	if len(z.bw) != 0 || len(z.lat) != len(newRailSizes(true).lat) || z.latIters != 50 {
		t.Errorf("--cases latency --iters 50 --quick: %+v", z)
	}
	z = (&benchRailOpts{cases: "bandwidth"}).railSizes()
	if len(z.lat) != 0 || len(z.bw) != len(newRailSizes(false).bw) || z.latIters != newRailSizes(false).latIters {
		t.Errorf("--cases bandwidth: %+v", z)
	}
	if z := (&benchRailOpts{cases: "bandwidth, latency"}).railSizes(); len(z.bw) == 0 || len(z.lat) == 0 {
		t.Errorf("--cases bandwidth,latency: %+v", z)
	}
	if got, err := parseImpls("tcp,tcppoll,plexus"); err != nil || strings.Join(got, ",") != "tcp,tcppoll,plexus" {
		t.Errorf("parseImpls(tcp,tcppoll,plexus) = %v, %v", got, err)
	}
	if contains(railImpls, "tcp") || contains(railImpls, "tcppoll") {
		t.Error("tcp or tcppoll runs by default; they should only when --impls names them")
	}
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestMedian: the middle value, or the mean of the two middle ones.
func TestMedian(t *testing.T) {
	if m := median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("median(3,1,2) = %v", m)
	}
	if m := median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median(4,1,3,2) = %v", m)
	}
}

// TestRailHosts: the two hosts for mpirun come from --host or the first
// two hosts of the hostfile, comments and slots left out.
func TestRailHosts(t *testing.T) {
	f := filepath.Join(t.TempDir(), "hosts")
	if err := os.WriteFile(f, []byte("# two hosts\nh1 slots=2\n\nh2 slots=2\nh3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ host, file string }{{"h1,h2", ""}, {"", f}} {
		got, err := railHosts(c.host, c.file)
		if err != nil || strings.Join(got, ",") != "h1,h2" {
			t.Errorf("railHosts(%q, %q) = %v, %v; want h1,h2", c.host, c.file, got, err)
		}
	}
	if _, err := railHosts("", filepath.Join(t.TempDir(), "none")); err == nil {
		t.Error("a missing hostfile: no error")
	}
}

// TestRailPhases: a round runs every impl's latency cases before any
// bandwidth case, and Open MPI's peer gets only the sizes of the phase it
// runs for, with the competing flow's marks only when it competes.
func TestRailPhases(t *testing.T) {
	local, err := multirail.LocalNets()
	if err != nil || len(local) == 0 {
		t.Skipf("no local network to put a rail on: %v", err)
	}
	d := &railDriver{o: &benchRailOpts{mpiProg: "railbw"}, s: &railSession{rails: []multirail.Addr{{Local: local[0].IP.String()}}}}
	for _, c := range []struct {
		cases string
		want  string
	}{{"bandwidth,latency", "latency,bandwidth"}, {"bandwidth", "bandwidth"}, {"latency", "latency"}} {
		d.sizes = (&benchRailOpts{cases: c.cases}).railSizes()
		if got := strings.Join(d.phases(), ","); got != c.want {
			t.Errorf("--cases %s: phases %s, want %s", c.cases, got, c.want)
		}
	}
	for _, c := range []struct {
		bench    string
		compete  bool
		has, not []string
	}{
		{"latency", false, []string{"-l", "-n"}, []string{"-s", "-b", "-m"}},
		{"bandwidth", false, []string{"-s", "-b", "-w"}, []string{"-l", "-n", "-m"}},
		{"bandwidth", true, []string{"-s", "-m", "-p"}, []string{"-l", "-n"}},
	} {
		args, err := d.mpiArgs(c.bench, c.compete)
		if err != nil {
			t.Fatal(err)
		}
		if args[len(args)-1] == "railbw" {
			t.Fatalf("%s: no sizes for the peer: %q", c.bench, args)
		}
		peer := args[indexOf(args, "railbw"):]
		for _, f := range c.has {
			if indexOf(peer, f) < 0 {
				t.Errorf("%s (compete %v): %q lacks %s", c.bench, c.compete, peer, f)
			}
		}
		for _, f := range c.not {
			if indexOf(peer, f) >= 0 {
				t.Errorf("%s (compete %v): %q has %s", c.bench, c.compete, peer, f)
			}
		}
	}
}

func indexOf(xs []string, x string) int {
	for k, y := range xs {
		if y == x {
			return k
		}
	}
	return -1
}

// TestRailTableFailedCase: a case that failed shows as failed in its
// table, with its note below, not as a value of zero.
func TestRailTableFailedCase(t *testing.T) {
	rows := []railRow{
		{Bench: "latency", Impl: "plexus", Rails: 2, Size: 4, Value: 9.5, Unit: "us", Aggregated: true},
		{Bench: "latency", Impl: "mptcp", Rails: 2, Size: 4, Unit: "us", Aggregated: true, Note: "failed: not done within the case's limit"},
	}
	var b bytes.Buffer
	if err := writeRailTables(&b, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"9.5", "failed\n", "note: mptcp: failed: not done within the case's limit"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "0.0") {
		t.Errorf("the failed case shows a value:\n%s", out)
	}
}

// TestRailRatiosPaired: where both impls ran every round, a size's ratio
// is the median of the rounds' ratios, not the ratio of the medians; and
// the report says so.
func TestRailRatiosPaired(t *testing.T) {
	lat := func(impl string, rounds ...float64) railRow {
		return railRow{Bench: "latency", Impl: impl, Size: 16, Unit: "us", Value: median(append([]float64(nil), rounds...)), Runs: len(rounds), Rounds: rounds}
	}
	// Medians 12 and 13 (1.083); each round Open MPI over plexus 1.1,
	// 1.5, 0.65: median 1.1.
	rows := []railRow{lat("plexus", 10, 12, 20), lat("openmpi", 11, 18, 13)}
	got := strings.Join(railRatios(rows), "\n")
	want := "plexus over openmpi (latency): worst 1.100 at 16 B, mean 1.100 over 1 sizes; target >= 1.00: met (each size's ratio paired round by round)"
	if got != want {
		t.Errorf("paired:\n got %s\nwant %s", got, want)
	}
	rows[1].Rounds = rows[1].Rounds[:2] // a round short: medians
	if got := strings.Join(railRatios(rows), "\n"); !strings.Contains(got, "worst 1.083 at 16 B") || strings.Contains(got, "paired") {
		t.Errorf("unpaired: %s", got)
	}
}
