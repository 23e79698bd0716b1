package measure

import (
	"bytes"
	"context"
	"math"
	"reflect"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/topo"
)

// TestLoadedThisMachine runs the loaded phase on this machine's CPUs: it
// must fill a symmetric, non-negative latency matrix and loaded round
// trips, and Merge must carry the latency into a valid model that saves
// and loads unchanged.
func TestLoadedThisMachine(t *testing.T) {
	cpus := allowed(t)
	r, err := Pairwise(context.Background(), Config{CPUs: cpus, Reps: 10}, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(cpus)
	checkSymmetric(t, "latency", r.Latency, n, false)
	checkSymmetric(t, "loaded rtt", r.LoadedRTT, n, true)
	if r.LoadedElapsed <= 0 || r.LoadedElapsed >= r.Elapsed {
		t.Errorf("loaded phase took %v of %v", r.LoadedElapsed, r.Elapsed)
	}
	t.Logf("CPUs %v: loaded rtt %v, latency %v (ns); loaded phase %v of %v",
		r.CPUs, r.LoadedRTT.Mean, r.Latency.Mean, r.LoadedElapsed, r.Elapsed)
	m, err := Merge(fourCPUs(), &Result{CPUs: []int{0, 1}, Send: sub(r.Send), Recv: sub(r.Recv), Latency: sub(r.Latency), Config: r.Config})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Latency, sub(r.Latency)) {
		t.Errorf("merged latency %v, measured %v", m.Latency, r.Latency)
	}
	var buf bytes.Buffer
	if err := m.Save(&buf); err != nil {
		t.Fatal(err)
	}
	if back, err := topo.Load(&buf); err != nil || !reflect.DeepEqual(back.Latency, m.Latency) {
		t.Errorf("saved and loaded latency %v (%v), want %v", back.Latency, err, m.Latency)
	}
}

// sub is the first 2×2 block of c: the measured costs of two CPUs, to
// merge into a fixture whatever this machine's CPU numbers are.
func sub(c *topo.Costs) *topo.Costs {
	out := topo.NewCosts(2, true)
	for i := range 2 {
		copy(out.Mean[i], c.Mean[i][:2])
		copy(out.SD[i], c.SD[i][:2])
	}
	return out
}

func checkSymmetric(t *testing.T, name string, c *topo.Costs, n int, positive bool) {
	t.Helper()
	if c == nil || len(c.Mean) != n || len(c.SD) != n {
		t.Fatalf("%s: %v, want %d×%d matrices", name, c, n, n)
	}
	for i := range n {
		for j := range n {
			v := c.Mean[i][j]
			switch {
			case v != c.Mean[j][i]:
				t.Errorf("%s[%d][%d] = %v but [%d][%d] = %v", name, i, j, v, j, i, c.Mean[j][i])
			case i == j && v != 0:
				t.Errorf("%s[%d][%d] = %v, want 0 on the diagonal", name, i, j, v)
			case math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || (positive && i != j && v == 0):
				t.Errorf("%s[%d][%d] = %v, want finite and %s", name, i, j, v, map[bool]string{true: "positive", false: "non-negative"}[positive])
			}
		}
	}
}

func TestSkipLoaded(t *testing.T) {
	cpus := allowed(t)[:2]
	var total int
	r, err := Pairwise(context.Background(), Config{CPUs: cpus, Reps: 4, SkipLoaded: true}, func(_, n int) { total = n })
	if err != nil {
		t.Fatal(err)
	}
	if r.Latency != nil || r.LoadedRTT != nil || r.LoadedElapsed != 0 {
		t.Errorf("skipped loaded phase left latency %v, rtt %v, elapsed %v", r.Latency, r.LoadedRTT, r.LoadedElapsed)
	}
	if total != 4*2 {
		t.Errorf("progress total %d, want the 8 pair visits only", total)
	}
	m, err := Merge(fourCPUs(), &Result{CPUs: []int{0, 1}, Send: r.Send, Recv: r.Recv, Config: r.Config})
	if err != nil || m.Latency != nil {
		t.Errorf("merge without latency: %v, latency %v", err, m.Latency)
	}
}

// TestFillLatency checks the arithmetic on made-up samples: half the
// median round trip less the mean of the two ways' send plus receive,
// clamped at zero, both ways.
func TestFillLatency(t *testing.T) {
	r := newResult([]int{0, 1, 2}, Config{Reps: 5}.withDefaults())
	set := func(c *topo.Costs, i, j int, v float64) { c.Mean[i][j] = v }
	// Pair {0,1}: s+r = 60+200 one way, 70+210 the other: 270 on average.
	set(r.Send, 0, 1, 60)
	set(r.Recv, 0, 1, 200)
	set(r.Send, 1, 0, 70)
	set(r.Recv, 1, 0, 210)
	// Pair {0,2}: 400 on average, more than half the round trip.
	set(r.Send, 0, 2, 100)
	set(r.Recv, 0, 2, 300)
	set(r.Send, 2, 0, 100)
	set(r.Recv, 2, 0, 300)
	acc := make([][]float64, 9)
	acc[0*3+1] = []float64{900, 5000, 1000, 1100, 800} // median 1000
	acc[0*3+2] = []float64{700, 600}                   // median 650
	acc[1*3+2] = []float64{300}
	r.fillLatency(acc)
	for _, c := range []struct {
		i, j     int
		rtt, lat float64
	}{{0, 1, 1000, 230}, {1, 0, 1000, 230}, {0, 2, 650, 0}, {2, 0, 650, 0}, {1, 2, 300, 150}, {2, 1, 300, 150}} {
		if r.LoadedRTT.Mean[c.i][c.j] != c.rtt || r.Latency.Mean[c.i][c.j] != c.lat {
			t.Errorf("[%d][%d]: rtt %v, latency %v; want %v, %v", c.i, c.j, r.LoadedRTT.Mean[c.i][c.j], r.Latency.Mean[c.i][c.j], c.rtt, c.lat)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{4, 1}, 2.5}, {[]float64{9, 1, 5}, 5}, {[]float64{1, 100, 2, 3}, 2.5}} {
		in := append([]float64(nil), c.in...)
		if got := median(c.in); got != c.want || !reflect.DeepEqual(in, c.in) {
			t.Errorf("median(%v) = %v, want %v (input %v)", in, got, c.want, c.in)
		}
	}
}

// TestLoadedCancelled stops a loaded phase that would take minutes.
func TestLoadedCancelled(t *testing.T) {
	cpus := allowed(t)
	r := newResult(cpus, Config{Reps: 1 << 30}.withDefaults())
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := r.loaded(ctx, r.Config, func() {}); err != context.DeadlineExceeded {
		t.Errorf("loaded past its deadline = %v, want context.DeadlineExceeded", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("loaded took %v to notice its deadline", el)
	}
}

// TestLoadedPhaseWorkers drives a pass's workers unpinned (this machine
// may have fewer CPUs than workers): every pair must get exactly its
// round trips, odd n resting one worker a round, and no other slot any.
func TestLoadedPhaseWorkers(t *testing.T) {
	sizes := []int{3, 4, 5}
	if testing.Short() {
		sizes = sizes[:1]
	}
	for _, n := range sizes {
		cfg := Config{Reps: 2, Warmup: 1}.withDefaults()
		var steps []loadedStep
		for range 2 { // two passes of one round trip each
			for _, round := range partners(n, tournament(n)) {
				steps = append(steps, loadedStep{partner: round, reps: 1})
			}
		}
		ph := &loadedPhase{cfg: cfg, n: n, steps: steps,
			mail: make([]atomic.Pointer[pairRun], n), rtt: make([][]float64, n*n), bar: spinBarrier{n: int32(n)}}
		errs := make(chan error, n)
		for w := range n {
			go func() { errs <- ph.worker(context.Background(), w) }()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Fatal(err)
			}
		}
		for a := range n {
			for b := range n {
				want := 0
				if a < b {
					want = 2
				}
				if got := len(ph.rtt[a*n+b]); got != want {
					t.Errorf("n=%d: pair (%d, %d) has %d round trips, want %d", n, a, b, got, want)
				}
			}
		}
	}
}

func TestPartners(t *testing.T) {
	plan := partners(3, [][][2]int{{{0, 2}}, {{1, 2}}})
	want := [][]int{{2, -1, 0}, {-1, 2, 1}}
	if !reflect.DeepEqual(plan, want) {
		t.Errorf("partners = %v, want %v", plan, want)
	}
}

// TestMergeCarriesLatency merges a result with a latency matrix: the model
// gets a copy (not the result's matrix) and the note names the phase.
func TestMergeCarriesLatency(t *testing.T) {
	r := twoCPUResult(3, 0)
	r.Latency = topo.NewCosts(2, true)
	r.Latency.Mean[0][1], r.Latency.Mean[1][0] = 120, 120
	r.LoadedElapsed = 1500 * time.Microsecond
	m, err := Merge(fourCPUs(), r)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(m.Latency, r.Latency) {
		t.Fatalf("merged latency %v, want %v", m.Latency, r.Latency)
	}
	if m.Latency.Mean[0] == nil || &m.Latency.Mean[0][0] == &r.Latency.Mean[0][0] {
		t.Error("merged model shares the result's latency matrix")
	}
	if want := "latency under load from 4 loaded rounds in 1.5ms"; !strings.Contains(m.Provenance.Notes, want) {
		t.Errorf("notes %q lack %q", m.Provenance.Notes, want)
	}
	r.Latency.Mean[0][1] = -1
	if _, err := Merge(fourCPUs(), r); err == nil || !strings.Contains(err.Error(), "latency.mean[0][1] = -1") {
		t.Errorf("merging a negative latency: %v", err)
	}
}
