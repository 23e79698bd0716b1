package bench

import (
	"strings"
	"testing"
)

func TestParseKernel(t *testing.T) {
	k, err := parseKernel("0b4f-11\n2\n")
	if err != nil || k != (kernel{boot: "0b4f-11", cpus: 2}) {
		t.Errorf("got %+v, %v", k, err)
	}
	for _, bad := range []string{"", "0b4f\n", "0b4f\ntwo\n", "0b4f\n0\n", "a\n2\nextra\n"} {
		if _, err := parseKernel(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestCrowdedOn(t *testing.T) {
	one := map[string]kernel{"h1": {"k", 2}, "h2": {"k", 2}}
	two := map[string]kernel{"h1": {"k1", 2}, "h2": {"k2", 2}}
	for _, tc := range []struct {
		placed  []string
		kernels map[string]kernel
		want    bool
	}{
		{[]string{"h1", "h2"}, one, false},
		{[]string{"h1", "h1", "h2", "h2"}, one, true},
		{[]string{"h1", "h1", "h2", "h2"}, two, false},
		{[]string{"h1", "h1", "h1"}, two, true},
		{[]string{"h1", "h1", "h2", "h2"}, nil, false},
	} {
		if got := crowdedOn(tc.placed, tc.kernels); got != tc.want {
			t.Errorf("crowdedOn(%v, %v) = %v", tc.placed, tc.kernels, got)
		}
	}
}

// TestMPIYields: Open MPI is told to yield exactly when its ranks
// outnumber the CPUs of the kernel their hosts share.
func TestMPIYields(t *testing.T) {
	m := &mpiImpl{dir: "/p", cfg: P2PConfig{Hosts: []string{"h1", "h2"}}, kernels: map[string]kernel{"h1": {"k", 2}, "h2": {"k", 2}}}
	for ranks, want := range map[int]bool{2: false, 4: true} {
		cmd := strings.Join(m.command(peerRun{prog: "coll", ranks: ranks}), " ")
		if got := strings.Contains(cmd, "--mca mpi_yield_when_idle 1"); got != want {
			t.Errorf("%d ranks: yield %v: %s", ranks, got, cmd)
		}
	}
}
