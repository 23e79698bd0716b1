package p2prank

import (
	"io"
	"strings"
	"testing"
)

// -algorithms is off unless asked for, so that plexus bench p2p's coll
// case keeps its three results.
func TestAlgorithmsFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"-bench", "coll"}, false},
		{[]string{"-bench", "coll", "-algorithms"}, true},
	} {
		o, err := parseFlags(tc.args, io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if o.algorithms != tc.want {
			t.Errorf("%v: algorithms %v, want %v", tc.args, o.algorithms, tc.want)
		}
	}
}

// The variants across hosts come only where the ranks span hosts, and
// allreduce-across only where every host holds as many ranks, two or more.
func TestAllreduceVariants(t *testing.T) {
	for _, tc := range []struct {
		hosts [][]int
		want  string
	}{
		{[][]int{{0, 1, 2, 3}}, "trees doubling"},
		{[][]int{{0, 1}, {2, 3}}, "trees doubling hier across"},
		{[][]int{{0, 1, 2}, {3, 4}}, "trees doubling hier"},
		{[][]int{{0}, {1}}, "trees doubling hier"},
	} {
		var names []string
		for _, v := range allreduceVariants(tc.hosts) {
			names = append(names, v.name)
			if v.name == "across" && !v.cfg.AcrossCrowded {
				t.Errorf("%v: across does not force itself on crowded machines", tc.hosts)
			}
			if v.name == "hier" && !v.cfg.Hierarchy {
				t.Errorf("%v: hier is not in two levels", tc.hosts)
			}
		}
		if got := strings.Join(names, " "); got != tc.want {
			t.Errorf("%v: variants %q, want %q", tc.hosts, got, tc.want)
		}
	}
}

// Rotation keeps every variant once and starts at the k-th, for k
// beyond the list too.
func TestRotated(t *testing.T) {
	vs := []allreduceVariant{{name: ""}, {name: "trees"}, {name: "doubling"}}
	for k, want := range []string{",trees,doubling", "trees,doubling,", "doubling,,trees", ",trees,doubling", "trees,doubling,"} {
		var names []string
		for _, v := range rotated(vs, k) {
			names = append(names, v.name)
		}
		if got := strings.Join(names, ","); got != want {
			t.Errorf("rotate %d: %q, want %q", k, got, want)
		}
	}
	if vs[0].name != "" || vs[2].name != "doubling" {
		t.Errorf("rotated changed its argument: %v", vs)
	}
}
