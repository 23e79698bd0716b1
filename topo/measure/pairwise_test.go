package measure

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/topo"
	"github.com/plexus-hpc/plexus/topo/sysfs"
)

// allowed returns up to four allowed CPUs, skipping the test when the
// process may not use two.
func allowed(t *testing.T) []int {
	t.Helper()
	cpus, err := affinity.Allowed()
	if err != nil {
		t.Skipf("affinity: %v", err)
	}
	if len(cpus) < 2 {
		t.Skipf("the process may run on %v only; Pairwise needs 2 CPUs", cpus)
	}
	return cpus[:min(4, len(cpus))]
}

func TestPairwiseThisMachine(t *testing.T) {
	cpus := allowed(t)
	var calls, last, total int
	r, err := Pairwise(context.Background(), Config{CPUs: cpus, Quick: true, Reps: 10}, func(d, n int) {
		calls, last, total = calls+1, d, n
	})
	if err != nil {
		t.Fatal(err)
	}
	n := len(cpus)
	if want := 4*n*(n-1) + 4*len(tournament(n)); calls != want || last != want || total != want {
		t.Errorf("progress called %d times, last (%d, %d); want %d calls ending (%d, %d)", calls, last, total, want, want, want)
	}
	for name, c := range map[string]*topo.Costs{"send": r.Send, "recv": r.Recv, "rtt": r.RTT} {
		checkCosts(t, name, c, n)
	}
	if r.Elapsed <= 0 || r.ClockNs <= 0 || r.Start.IsZero() || r.Config.Reps != 10 || r.Config.Batch != DefaultBatch {
		t.Errorf("elapsed %v, clock %v ns, start %v, config %+v", r.Elapsed, r.ClockNs, r.Start, r.Config)
	}
	t.Logf("CPUs %v in %v: send %v, recv %v, rtt %v (ns)", r.CPUs, r.Elapsed, r.Send.Mean, r.Recv.Mean, r.RTT.Mean)
}

func checkCosts(t *testing.T, name string, c *topo.Costs, n int) {
	t.Helper()
	if len(c.Mean) != n || len(c.SD) != n {
		t.Fatalf("%s: %d×%d matrices, want %d", name, len(c.Mean), len(c.SD), n)
	}
	for i := range n {
		for j := range n {
			mean, sd := c.Mean[i][j], c.SD[i][j]
			switch {
			case i == j && (mean != 0 || sd != 0):
				t.Errorf("%s[%d][%d] = %v ± %v, want 0 on the diagonal", name, i, j, mean, sd)
			case i != j && !(mean > 0 && !math.IsInf(mean, 0)):
				t.Errorf("%s[%d][%d] mean = %v, want positive and finite", name, i, j, mean)
			case !(sd >= 0 && !math.IsInf(sd, 0)):
				t.Errorf("%s[%d][%d] sd = %v, want ≥ 0 and finite", name, i, j, sd)
			}
		}
	}
}

// TestPairwiseMerge measures this machine and merges it into its
// discovered model, as plexus machine measure does.
func TestPairwiseMerge(t *testing.T) {
	cpus := allowed(t)[:2]
	m, err := sysfs.Local()
	if err != nil {
		t.Skipf("no sysfs: %v", err)
	}
	r, err := Pairwise(context.Background(), Config{CPUs: cpus, Reps: 5}, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := Merge(m, r)
	if err != nil {
		t.Fatal(err)
	}
	if got.N() != 2 || got.CPUs[0].ID != cpus[0] || got.CPUs[1].ID != cpus[1] || !got.HasCosts() {
		t.Fatalf("merged model has CPUs %v, costs %v", got.IDs(), got.HasCosts())
	}
	if got.Send.Mean[0][1] != r.Send.Mean[0][1] || got.Provenance.Source != "measured" || got.Provenance.CostsEstimated {
		t.Errorf("merged send %v, provenance %+v", got.Send.Mean, got.Provenance)
	}
}

func TestPairwiseCancelled(t *testing.T) {
	cpus := allowed(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Pairwise(ctx, Config{CPUs: cpus}, nil); err != context.Canceled {
		t.Errorf("Pairwise with a cancelled context = %v, want context.Canceled", err)
	}
}

// TestPairwiseDeadline stops a measurement that would take minutes; it
// must return promptly, from inside a pair.
func TestPairwiseDeadline(t *testing.T) {
	cpus := allowed(t)
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Pairwise(ctx, Config{CPUs: cpus, Reps: 1 << 30}, nil)
	if err != context.DeadlineExceeded {
		t.Errorf("Pairwise past its deadline = %v, want context.DeadlineExceeded", err)
	}
	if el := time.Since(start); el > 2*time.Second {
		t.Errorf("Pairwise took %v to notice its deadline", el)
	}
}

func TestPairwiseBadCPUs(t *testing.T) {
	cpus := allowed(t)
	bad := 1 << 19 // within ParseCPUList's range, beyond any real machine
	for _, c := range []struct {
		cfg  Config
		want error
		msg  string
	}{
		{Config{CPUs: []int{cpus[0], bad}}, affinity.ErrNotAllowed, "CPUs [524288] are outside the process's affinity mask"},
		{Config{CPUs: []int{cpus[0]}}, ErrTooFewCPUs, "need at least 2 CPUs"},
		{Config{CPUs: []int{cpus[0], cpus[0]}}, ErrConfig, "listed twice"},
		{Config{Reps: -3}, ErrConfig, "Reps = -3"},
	} {
		r, err := Pairwise(context.Background(), c.cfg, nil)
		if r != nil || !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("Pairwise(%+v) = %v, %v; want %v saying %q", c.cfg, r, err, c.want, c.msg)
		}
	}
}
