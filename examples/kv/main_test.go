package main

import (
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/internal/jobtest"
)

// TestKV builds plexus and this example and runs it under plexus run
// with two client ranks: each reads its own key back, and of the two
// swaps of the shared key exactly one replaced nothing.
func TestKV(t *testing.T) {
	bin := jobtest.Binaries{Pkgs: []string{"../../cmd/plexus", "."}}
	defer bin.Remove()
	s := bin.RunPlexus(t, 5, nil, "kv")
	for _, want := range []string{`client 3 read rank-003 = "mine"`, `client 4 read rank-004 = "mine"`} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if n := strings.Count(s, `replaced ""`); n != 1 {
		t.Errorf("%d swaps of the shared key replaced nothing, want exactly 1:\n%s", n, s)
	}
	if !strings.Contains(s, `replaced "from `) {
		t.Errorf("no swap replaced the other client's value:\n%s", s)
	}
}
