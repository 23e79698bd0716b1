package comm

import (
	"runtime"
	"testing"

	"github.com/plexus-hpc/plexus/affinity"
)

func TestCrowdedProcs(t *testing.T) {
	for _, c := range []struct{ mask, sharers, want int }{
		{2, 4, 1},   // four ranks on two CPUs: one P each
		{8, 10, 1},  // a host's share of 8 CPUs for its 10 ranks
		{8, 2, 4},   // a lightly loaded host of a crowded machine
		{16, 5, 3},  // rounded down: the share is what a rank may count on
		{4, 0, 4},   // nobody counted: the mask
		{0, 3, 1},   // never below one
		{3, 3, 1},   // exactly one CPU each
		{7, 1, 7},   // alone on its mask
		{1, 100, 1}, // far oversubscribed
	} {
		if got := crowdedProcs(c.mask, c.sharers); got != c.want {
			t.Errorf("crowdedProcs(%d CPUs, %d ranks) = %d, want %d", c.mask, c.sharers, got, c.want)
		}
	}
}

// TestShareOf checks whose ranks share which CPUs: a bound rank its
// host's share with its host's ranks, an unbound one the machine's CPUs
// with the machine's ranks, one bound by someone else nobody known.
func TestShareOf(t *testing.T) {
	const boot = "0f6e1f7c-3a9e-4b55-9a34-2f1f7d0c8a01"
	a, b := "h1/"+boot+"/net:[1]", "h2/"+boot+"/net:[2]"
	hosts := []string{a, b, b, b, b, b, b} // 1 + 6 ranks on a 4-CPU machine
	cpus := func(n int) []int {
		m := make([]int, n)
		for i := range m {
			m[i] = i
		}
		return m
	}
	for _, c := range []struct {
		name  string
		rank  int
		bound bool
		mask  []int
		want  int
		ok    bool
	}{
		{"alone on its host, bound to 2 CPUs", 0, true, cpus(2), 2, true},
		{"six on their host, bound to 2 CPUs", 1, true, cpus(2), 1, true},
		{"unbound: the machine's 4 CPUs, 7 ranks", 0, false, cpus(4), 1, true},
		{"bound by someone else to 2 of 4", 0, false, cpus(2), 0, false},
		{"no such rank", 9, false, cpus(4), 0, false},
	} {
		got, ok := shareOf(hosts, c.rank, 4, c.bound, c.mask)
		if got != c.want || ok != c.ok {
			t.Errorf("%s: shareOf = %d, %v; want %d, %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// TestShareProcs checks the rule on this process's real mask: unbound on
// a crowded machine a rank takes its share of the machine's ranks, never
// more Ps than it had; bound by someone else (its mask narrower than the
// machine), or with GOMAXPROCS set, it keeps GOMAXPROCS as it is.
func TestShareProcs(t *testing.T) {
	mask, err := affinity.ProcessCPUs()
	if err != nil {
		t.Skipf("no affinity mask here: %v", err)
	}
	n := len(mask)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	noEnv := func(string) string { return "" }
	crowd := make([]string, 2*n+2) // more ranks than CPUs, half on each host
	for i := range crowd {
		crowd[i] = []string{"a", "b"}[i%2]
	}
	const sentinel = 3
	for _, c := range []struct {
		name        string
		hosts       []string
		cpus        int
		env         string
		start, want int
	}{
		{"unbound, crowded machine", crowd, n, "", sentinel, crowdedProcs(n, len(crowd))},
		{"alone: a share of every CPU, not raised above 1", []string{"a"}, n, "", 1, 1},
		{"bound by someone else", crowd, n + 1, "", sentinel, sentinel},
		{"GOMAXPROCS set", crowd, n, "5", sentinel, sentinel},
	} {
		runtime.GOMAXPROCS(c.start)
		getenv := noEnv
		if c.env != "" {
			getenv = func(k string) string {
				if k == "GOMAXPROCS" {
					return c.env
				}
				return ""
			}
		}
		shareProcs(c.hosts, 0, c.cpus, false, getenv)
		if got := runtime.GOMAXPROCS(0); got != c.want {
			t.Errorf("%s (%d CPUs in the mask): GOMAXPROCS %d, want %d", c.name, n, got, c.want)
		}
	}
}
