package measure

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/topo"
)

func TestConfigDefaults(t *testing.T) {
	for _, c := range []struct {
		in, want Config
	}{
		{Config{}, Config{Reps: 200, Batch: 8, Warmup: 20, Slots: 64}},
		{Config{Quick: true}, Config{Reps: 20, Batch: 8, Warmup: 2, Slots: 64, Quick: true}},
		{Config{Reps: 5, Batch: 100}, Config{Reps: 5, Batch: 100, Warmup: 1, Slots: 256}},
		{Config{Reps: 7, Batch: 1, Warmup: 3, Slots: 2, Quick: true}, Config{Reps: 7, Batch: 1, Warmup: 3, Slots: 2, Quick: true}},
	} {
		if got := c.in.withDefaults(); !equalConfig(got, c.want) {
			t.Errorf("%+v.withDefaults() = %+v, want %+v", c.in, got, c.want)
		}
	}
}

func equalConfig(a, b Config) bool {
	return slices.Equal(a.CPUs, b.CPUs) && a.Reps == b.Reps && a.Batch == b.Batch &&
		a.Warmup == b.Warmup && a.Slots == b.Slots && a.Quick == b.Quick
}

func TestConfigValidate(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want error
		msg  string
	}{
		{Config{}, nil, ""},
		{Config{CPUs: []int{3, 1}}, nil, ""},
		{Config{Reps: -1}, ErrConfig, "Reps = -1"},
		{Config{Warmup: -2}, ErrConfig, "Warmup = -2"},
		{Config{Batch: 16, Slots: 16}, ErrConfig, "Slots 16 is less than twice the batch of 16"},
		{Config{Slots: 48}, ErrConfig, "Slots 48 is not a power of two"},
		{Config{Slots: 1 << 25}, ErrConfig, "Slots 33554432 is not a power of two up to 16777216"},
		{Config{Batch: 1 << 24}, ErrConfig, "less than twice"},
		{Config{Batch: 100}, nil, ""}, // default Slots grows with the batch
		{Config{CPUs: []int{0, -1}}, ErrConfig, "CPU -1 is negative"},
		{Config{CPUs: []int{0, 1, 0}}, ErrConfig, "CPU 0 listed twice"},
		{Config{CPUs: []int{4}}, ErrTooFewCPUs, "need at least 2 CPUs"},
		{Config{CPUs: []int{}}, ErrTooFewCPUs, "got 0"},
	} {
		err := c.cfg.Validate()
		if !errors.Is(err, c.want) || (err == nil) != (c.want == nil) {
			t.Errorf("%+v.Validate() = %v, want %v", c.cfg, err, c.want)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%+v.Validate() = %q, want it to say %q", c.cfg, err, c.msg)
		}
	}
}

func TestResolveCPUs(t *testing.T) {
	for _, c := range []struct {
		want, allowed, got []int
		err                error
		msg                string
	}{
		{nil, []int{0, 1, 2}, []int{0, 1, 2}, nil, ""},
		{[]int{2, 0}, []int{0, 1, 2}, []int{0, 2}, nil, ""},
		{nil, []int{5}, nil, ErrTooFewCPUs, "need at least 2 CPUs, have 1 ([5]); the process may run on [5]"},
		{[]int{1, 7, 9}, []int{0, 1}, nil, affinity.ErrNotAllowed, "CPUs [7 9] are outside the process's affinity mask [0 1]"},
	} {
		got, err := resolveCPUs(c.want, c.allowed)
		if !slices.Equal(got, c.got) || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
			t.Errorf("resolveCPUs(%v, %v) = %v, %v; want %v, %v", c.want, c.allowed, got, err, c.got, c.err)
			continue
		}
		if err != nil && !strings.Contains(err.Error(), c.msg) {
			t.Errorf("resolveCPUs(%v, %v): %q lacks %q", c.want, c.allowed, err, c.msg)
		}
	}
}

func TestRepsSplit(t *testing.T) {
	for _, c := range []struct {
		reps int
		want []int
	}{
		{1, []int{1}},
		{3, []int{1, 1, 1}},
		{4, []int{1, 1, 1, 1}},
		{10, []int{3, 3, 2, 2}},
		{200, []int{50, 50, 50, 50}},
	} {
		var got []int
		for k := range rounds(c.reps) {
			got = append(got, repsIn(c.reps, k))
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("reps %d split %v, want %v", c.reps, got, c.want)
		}
	}
}

// TestConfigValidateRefusesOversized checks that a CPU list too long for
// the cost matrices is refused before they are allocated (and before the
// duplicate check, which is quadratic).
func TestConfigValidateRefusesOversized(t *testing.T) {
	cpus := make([]int, topo.MaxCostCPUs+1)
	for i := range cpus {
		cpus[i] = i
	}
	err := Config{CPUs: cpus}.Validate()
	if !errors.Is(err, topo.ErrTooLarge) || !strings.Contains(err.Error(), "2049 CPUs, more than topo.MaxCostCPUs = 2048") {
		t.Fatalf("err = %v; want topo.ErrTooLarge naming topo.MaxCostCPUs", err)
	}
}
