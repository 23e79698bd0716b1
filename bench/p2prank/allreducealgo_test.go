package p2prank

import (
	"io"
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
