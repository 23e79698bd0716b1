//go:build linux

package collective

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/internal/syncbuf"
	"github.com/plexus-hpc/plexus/launch"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// rankEnv makes the test binary act as a rank of a job that plexus run
// started (launch.Job), in the mode it names; roundsEnv is the rounds.
const (
	rankEnv   = "COLLECTIVE_TEST_RANK"
	roundsEnv = "COLLECTIVE_TEST_ROUNDS"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(rankEnv); mode != "" {
		os.Exit(rankMain(mode))
	}
	os.Exit(m.Run())
}

// runJob runs this test binary as n ranks in mode, as plexus run does
// (processes over one shared-memory segment), and returns their standard
// output, each line prefixed "[rank] ".
func runJob(t *testing.T, n int, mode string, rounds int) string {
	t.Helper()
	t.Setenv(rankEnv, mode)
	t.Setenv(roundsEnv, fmt.Sprint(rounds))
	t.Setenv("GORACE", "atexit_sleep_ms=0")
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

// TestJobPosts: ranks in processes of their own, over one segment, run
// the mix of flat collectives (TestPostsOps's) and every rank gets the
// expected bytes, floating-point sums included, at 2, 3 and 4 ranks.
func TestJobPosts(t *testing.T) {
	for _, n := range []int{2, 3, 4} {
		t.Run(fmt.Sprintf("ranks=%d", n), func(t *testing.T) {
			out := runJob(t, n, "ops", count(2000))
			for r := range n {
				want := fmt.Sprintf("[%d] rank %d: %d rounds on posts exact", r, r, count(2000))
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestJobPostsKilledRank: the last rank's process exits without closing
// anything while the others wait for its post in a barrier; they fail
// with the loss, rather than hang.
func TestJobPostsKilledRank(t *testing.T) {
	const n = 3
	start := time.Now()
	out := runJob(t, n, "kill", 200)
	for r := range n - 1 {
		want := fmt.Sprintf("[%d] rank %d: barrier failed after the loss", r, r)
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if d := time.Since(start); d > 40*time.Second {
		t.Errorf("the job took %v after a rank died", d)
	}
}

// rankMain is one rank of a job of runJob.
func rankMain(mode string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	run := runRank
	if strings.HasPrefix(mode, "hier") {
		run = hierRank // hiercluster_test.go
	}
	if strings.HasPrefix(mode, "across") {
		run = acrossRank // acrosscluster_test.go
	}
	err := run(ctx, mode)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func runRank(ctx context.Context, mode string) error {
	w, err := comm.JoinWith(ctx, comm.Config{Serialized: true})
	if err != nil {
		return err
	}
	defer w.Close()
	c, err := New(ctx, w, Config{Model: Placement})
	if err != nil {
		return err
	}
	defer c.Close()
	if c.flat == nil || c.PostBytes() != shm.PostBytes {
		return fmt.Errorf("rank %d: area %v, PostBytes %d: no collective area", w.Rank(), c.flat != nil, c.PostBytes())
	}
	var rounds int
	fmt.Sscan(os.Getenv(roundsEnv), &rounds)
	switch mode {
	case "ops":
		return rankOps(ctx, c, rounds)
	case "kill":
		return rankKill(ctx, c, rounds)
	}
	return fmt.Errorf("unknown mode %q", mode)
}

// rankOps runs rounds of postRound and checks each result.
func rankOps(ctx context.Context, c *Comm, rounds int) error {
	for i := range rounds {
		got, err := postRound(ctx, c, i)
		if err != nil {
			return fmt.Errorf("rank %d round %d: %w", c.Rank(), i, err)
		}
		if want := wantRound(c.Size(), i); string(got) != string(want) {
			return fmt.Errorf("rank %d round %d (%s): got %x, want %x", c.Rank(), i, roundOp(i), got, want)
		}
	}
	fmt.Printf("rank %d: %d rounds on posts exact\n", c.Rank(), rounds)
	return nil
}

// rankKill runs rounds of postRound; then the last rank exits without a
// word while the others wait in a barrier.
func rankKill(ctx context.Context, c *Comm, rounds int) error {
	if err := rankOps(ctx, c, rounds); err != nil {
		return err
	}
	if c.Rank() == c.Size()-1 {
		time.Sleep(50 * time.Millisecond)
		os.Exit(0)
	}
	err := c.Barrier(ctx)
	switch {
	case err == nil:
		return fmt.Errorf("rank %d: barrier without the dead rank succeeded", c.Rank())
	case errors.Is(err, comm.ErrPeerLost) || errors.Is(err, comm.ErrLinkAborted):
		fmt.Printf("rank %d: barrier failed after the loss: %v\n", c.Rank(), err)
		return nil
	}
	return fmt.Errorf("rank %d: barrier failed with %w, want the loss", c.Rank(), err)
}
