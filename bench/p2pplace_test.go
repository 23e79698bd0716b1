package bench

import (
	"errors"
	"strings"
	"testing"
)

// TestPlacementErr: the ranks per host must match what was asked, in
// any order and whatever names the hosts print; all on one host, a
// missing rank or an uneven split is an ErrPlacement that says both.
func TestPlacementErr(t *testing.T) {
	asked := []string{"h1", "h1", "h2", "h2"}
	for _, tc := range []struct {
		got  string
		fail string
	}{
		{got: "h2 h1 h2 h1"},
		{got: "node7.example node7.example node8.example node8.example"}, // names differ from the hostfile's
		{got: "h1 h1 h1 h1", fail: "ranks per host [4] (h1,h1,h1,h1), asked for [2 2]"},
		{got: "h1 h1 h2", fail: "4 ranks asked for, 3 reported"},
		{got: "h1 h2 h2 h2", fail: "ranks per host [1 3]"},
	} {
		err := placementErr(asked, strings.Fields(tc.got))
		switch {
		case tc.fail == "" && err != nil:
			t.Errorf("%q: %v", tc.got, err)
		case tc.fail != "" && (!errors.Is(err, ErrPlacement) || !strings.Contains(err.Error(), tc.fail)):
			t.Errorf("%q: err %v, want ErrPlacement saying %q", tc.got, err, tc.fail)
		}
	}
}

// TestMapByNode: mpirun is told how many ranks go on each node when the
// hosts hold the same number, and left to the slots otherwise.
func TestMapByNode(t *testing.T) {
	m := &mpiImpl{dir: "/p", cfg: P2PConfig{Hosts: []string{"h1", "h2"}, SSH: []string{"agent"}}}
	if got := strings.Join(m.command(peerRun{prog: "coll", ranks: 4}), " "); !strings.Contains(got, "--host h1:2,h2:2 --map-by ppr:2:node") {
		t.Errorf("4 ranks on 2 hosts: %s", got)
	}
	if got := strings.Join(m.command(peerRun{prog: "coll", ranks: 3}), " "); strings.Contains(got, "--map-by") || !strings.Contains(got, "--host h1:2,h2:1") {
		t.Errorf("3 ranks on 2 hosts: %s", got)
	}
}
