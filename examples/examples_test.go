// Package examples_test runs every program in examples/ under plexus run,
// as a user would, and checks that the README quotes examples/hello
// exactly.
package examples_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/plexus-hpc/plexus/internal/jobtest"
)

// TestReadmeQuotesHello checks that README.md shows examples/hello/main.go
// as it is, so that the README's program is one that compiles and runs
// (TestHello).
func TestReadmeQuotesHello(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("hello/main.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(readme, []byte("```go\n"+string(src)+"```\n")) {
		t.Errorf("README.md does not quote examples/hello/main.go whole in a ```go block; copy the file into it")
	}
}

func TestHello(t *testing.T) {
	for _, n := range []int{1, 2, 4} {
		t.Run(fmt.Sprintf("ranks=%d", n), func(t *testing.T) {
			out := runExample(t, "hello", n)
			for r := range n {
				want := fmt.Sprintf("rank %d of %d: the ranks add up to %d", r, n, n*(n-1)/2)
				mustContain(t, out, want)
			}
			if n > 1 {
				mustContain(t, out, `rank 1 received "hello" from rank 0`)
			}
		})
	}
}

func TestRing(t *testing.T) {
	out := runExample(t, "ring", 4, "-laps", "50")
	mustContain(t, out, "token 300 after 50 laps of 4 ranks")
}

func TestAllreduce(t *testing.T) {
	out := runExample(t, "allreduce", 3, "-n", "1001")
	mustContain(t, out, "1001 values on 3 ranks: sum 4500, norm 168.819, histogram [101 100 100 100 100 100 100 100 100 100]")
}

func TestStencil(t *testing.T) {
	for _, tc := range []struct {
		ranks int
		args  []string
	}{
		{4, []string{"-n", "10000", "-steps", "200"}},
		{3, []string{"-n", "4", "-steps", "20"}}, // blocks of one and two cells
	} {
		t.Run(fmt.Sprintf("ranks=%d", tc.ranks), func(t *testing.T) {
			out := runExample(t, "stencil", tc.ranks, tc.args...)
			mustContain(t, out, fmt.Sprintf("on %d ranks", tc.ranks))
			mustContain(t, out, "same as one process")
		})
	}
}

func TestAM(t *testing.T) {
	out := runExample(t, "am", 3, "-n", "20000")
	for r := range 3 {
		mustContain(t, out, fmt.Sprintf("rank %d: 20000 messages to each of 3 ranks arrived exactly once", r))
	}
}

// TestAMLostRank: a rank that exits without closing anything makes the
// others' calls to it fail with comm.ErrPeerLost rather than hang.
func TestAMLostRank(t *testing.T) {
	out := runExample(t, "am", 3, "-lose", "2")
	for r := range 2 {
		mustContain(t, out, fmt.Sprintf("rank %d: a call to rank 2 failed with comm.ErrPeerLost", r))
	}
}

// TestPGAS: 3 ranks of 8 goroutines FetchAndAdd into a global array
// striped over all of them; the sum is exact.
func TestPGAS(t *testing.T) {
	out := runExample(t, "pgas", 3, "-n", "2000")
	mustContain(t, out, "FetchAndAdd sum 48000 of 64 counters is exact")
}

// bin holds the plexus command and the examples, built once.
var bin = jobtest.Binaries{Pkgs: []string{"../cmd/plexus", "./am", "./pgas", "./hello", "./ring", "./allreduce", "./stencil"}}

func TestMain(m *testing.M) {
	flag.Parse()
	code := m.Run()
	bin.Remove()
	os.Exit(code)
}

// runExample runs example under plexus run with n ranks and returns the
// ranks' output with the "[rank] " prefixes removed.
func runExample(t *testing.T, example string, n int, args ...string) string {
	t.Helper()
	return bin.RunPlexus(t, n, nil, example, args...)
}

var mustContain = jobtest.MustContain
