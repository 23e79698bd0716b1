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

// TestShareProcs checks the rule on this process's real mask: unbound on
// a crowded machine a rank takes its share of the machine's ranks; bound
// to its host's share, of its host's ranks; bound by someone else (its
// mask narrower than the machine), or with GOMAXPROCS set, it keeps
// GOMAXPROCS as it is.
func TestShareProcs(t *testing.T) {
	mask, err := affinity.Allowed()
	if err != nil {
		t.Skipf("no affinity mask here: %v", err)
	}
	n := len(mask)
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	noEnv := func(string) string { return "" }
	hosts := make([]string, 2*n+2) // more ranks than CPUs, half on each host
	for i := range hosts {
		hosts[i] = []string{"a", "b"}[i%2]
	}
	const sentinel = 3
	for _, c := range []struct {
		name  string
		cpus  int
		bound bool
		env   string
		want  int
	}{
		{"unbound, crowded machine", n, false, "", crowdedProcs(n, len(hosts))},
		{"bound to its host's share", n, true, "", crowdedProcs(n, n+1)},
		{"bound by someone else", n + 1, false, "", sentinel},
		{"GOMAXPROCS set", n, false, "5", sentinel},
	} {
		runtime.GOMAXPROCS(sentinel)
		getenv := noEnv
		if c.env != "" {
			getenv = func(k string) string {
				if k == "GOMAXPROCS" {
					return c.env
				}
				return ""
			}
		}
		shareProcs(hosts, 0, c.cpus, c.bound, getenv)
		if got := runtime.GOMAXPROCS(0); got != c.want {
			t.Errorf("%s (%d CPUs in the mask): GOMAXPROCS %d, want %d", c.name, n, got, c.want)
		}
	}
}
