package launch

import (
	"slices"
	"strings"
	"testing"
)

// TestRailsReachEveryRank checks that Job.Rails reaches ranks on this
// host and on others as PLEXUS_RAILS, and that without it no
// PLEXUS_RAILS is set.
func TestRailsReachEveryRank(t *testing.T) {
	p := placement{hosts: []string{"", "h"}, localRank: []int{0, 0}, localSize: []int{1, 1}}
	s := &session{job: Job{N: 2, Prog: "x", Rails: "10.252.1.0/24,10.252.2.0/24"}, p: p}
	want := "PLEXUS_RAILS=10.252.1.0/24,10.252.2.0/24"
	if env := s.plexusEnv(0); !slices.Contains(env, want) {
		t.Errorf("rank 0's environment %q lacks %s", env, want)
	}
	if sh := s.remoteShell(1); !strings.Contains(sh, shellQuote(want)) {
		t.Errorf("rank 1's remote command %q lacks %s", sh, want)
	}
	s.job.Rails = ""
	for _, kv := range s.plexusEnv(0) {
		if strings.HasPrefix(kv, "PLEXUS_RAILS=") {
			t.Errorf("no rails, yet %s", kv)
		}
	}
}
