package pgas

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/syncbuf"
	"github.com/plexus-hpc/plexus/launch"
)

// runJob runs this test binary as n ranks in mode, as plexus run does
// (launch.Job, over shared memory between the processes), and returns
// their standard output, each line prefixed "[rank] ".
func runJob(t *testing.T, n int, mode string, load int) string {
	t.Helper()
	t.Setenv(rankEnv, mode)
	t.Setenv("PGAS_TEST_N", fmt.Sprint(load))
	t.Setenv("GORACE", "atexit_sleep_ms=0") // else each rank lingers a second under -race
	var out, errOut syncbuf.Buffer
	j := launch.Job{N: n, Prog: os.Args[0], Args: []string{"-test.run=^$"},
		Timeout: 50 * time.Second, Stdout: &out, Stderr: &errOut}
	if err := j.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background()); err != nil {
		t.Fatalf("job of %d ranks, mode %s: %v\nstdout:\n%s\nstderr:\n%s", n, mode, err, out.String(), errOut.String())
	}
	return out.String()
}

// TestJobCacheAndDelegates: under plexus run, every rank acquires
// read-write a share spanning all ranks, changes it and releases it, and
// the array is exact on every rank; then every delegate, blocking and
// async, from every rank, with exact sums and values.
func TestJobCacheAndDelegates(t *testing.T) {
	load := 4000
	if testing.Short() {
		load = 600
	}
	const ranks = 3
	out := runJob(t, ranks, "all", load)
	for r := range ranks {
		want := fmt.Sprintf("[%d] rank %d: cache write-back of %d elements over %d ranks exact", r, r, load*ranks, ranks)
		mustHave(t, out, want)
		ops := max(load/4, incrKinds)
		mustHave(t, out, fmt.Sprintf("[%d] rank %d: every delegate exact: counters sum %d, %d slots", r, r, ranks*rankGoroutines*ops, 16*ranks*ranks))
	}
}

// TestJobKilledRank: under plexus run, the last rank dies mid-load; the
// others' operations of every kind on it fail with an error wrapping
// comm.ErrPeerLost, operations among the survivors go on, and the job
// ends rather than hangs.
func TestJobKilledRank(t *testing.T) {
	const ranks = 3
	start := time.Now()
	out := runJob(t, ranks, "kill", 0)
	all := strings.Join(slices.Sorted(slices.Values(lossKinds)), ", ")
	for r := range ranks - 1 {
		mustHave(t, out, fmt.Sprintf("[%d] rank %d: %s on lost rank %d failed with comm.ErrPeerLost", r, r, all, ranks-1))
	}
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("the job took %v after a rank died", d)
	}
}

func mustHave(t *testing.T, out, want string) {
	t.Helper()
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
