//go:build linux

package collective

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/jobtest"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/internal/syncbuf"
	"github.com/plexus-hpc/plexus/launch"
)

// The namespace cluster (testdata/cluster): hosts h1, h2, ... on this
// machine, each its own network namespace, hostname and /dev/shm.
const (
	clusterScript = "../../testdata/cluster/cluster.sh"
	clusterAgent  = "../../testdata/cluster/agent"
	// layoutEnv tells a rank the job's layout, one letter per rank.
	layoutEnv = "COLLECTIVE_TEST_LAYOUT"
	// lossLimit is how soon after a rank dies every rank waiting on it,
	// directly or through its host's leader, must have failed (the
	// multi-host issue's fault tests' limit).
	lossLimit = 2 * time.Second
)

// clusterUp brings up n namespace hosts for the test and takes them down
// after it, or skips when this machine cannot make them.
func clusterUp(t *testing.T, n int) { jobtest.ClusterUp(t, clusterScript, n) }

// runCluster runs this test binary in mode as one rank per letter of
// layout, rank r on host h(1+layout[r]-'a'), through the cluster's agent,
// and returns the ranks' standard output, each line prefixed "[rank] ".
func runCluster(t *testing.T, layout, mode string, rounds int) string {
	t.Helper()
	agent, err := filepath.Abs(clusterAgent)
	if err != nil {
		t.Fatal(err)
	}
	hosts := make([]string, len(layout))
	for r := range layout {
		hosts[r] = fmt.Sprintf("h%d", 1+int(layout[r]-'a'))
	}
	t.Setenv(rankEnv, mode)
	t.Setenv(roundsEnv, fmt.Sprint(rounds))
	t.Setenv(layoutEnv, layout)
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	var out, errOut syncbuf.Buffer
	j := launch.Job{N: len(layout), Prog: os.Args[0], Args: []string{"-test.run=^$"}, Hosts: hosts,
		SSH: []string{agent}, Timeout: 50 * time.Second, Stdout: &out, Stderr: &errOut}
	if err := j.Validate(); err != nil {
		t.Fatal(err)
	}
	if err := j.Run(context.Background()); err != nil {
		t.Fatalf("job on %v, mode %s: %v\nstdout:\n%s\nstderr:\n%s", hosts, mode, err, out.String(), errOut.String())
	}
	return out.String()
}

// TestClusterHier: on namespace hosts (2 hosts × 2 ranks; 3 hosts of 2,
// 1 and 2 ranks), ranks in processes of their own run rounds of
// barriers, broadcasts from every root and floating-point allreduces in
// two levels, over each host's shared memory and TCP between hosts, and
// every rank gets the bytes the documented order gives (wantHier), the
// same everywhere.
func TestClusterHier(t *testing.T) {
	clusterUp(t, 3)
	for _, layout := range []string{"aabb", "aabcc"} {
		t.Run("hosts="+layout, func(t *testing.T) {
			rounds := count(1000)
			out := runCluster(t, layout, "hier-ops", rounds)
			for r := range layout {
				want := fmt.Sprintf("[%d] rank %d: %d rounds across hosts exact", r, r, rounds)
				if !strings.Contains(out, want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
		})
	}
}

// TestClusterHierKilled: a rank dies without a word while the others wait
// for it in a two-level barrier, a host's leader (rank 2) or a rank that
// follows one (rank 3) on h2: every other rank fails with the loss or
// the abort that follows it within lossLimit of its death.
func TestClusterHierKilled(t *testing.T) {
	clusterUp(t, 2)
	for _, mode := range []string{"hier-kill2", "hier-kill3"} {
		t.Run(mode, func(t *testing.T) {
			gone := int(mode[len(mode)-1] - '0')
			checkLoss(t, runCluster(t, "aabb", mode, 50), gone, 4, "barrier")
		})
	}
}

// checkLoss checks a killed job's output: rank gone said when it exits,
// and every other of the ranks said that its op failed with the loss or
// the abort that follows it, within lossLimit of the death.
func checkLoss(t *testing.T, out string, gone, ranks int, op string) {
	t.Helper()
	m := regexp.MustCompile(fmt.Sprintf(`(?m)^\[%d\] rank %d exits at (\d+)$`, gone, gone)).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("rank %d did not say when it exits:\n%s", gone, out)
	}
	died, _ := strconv.ParseInt(m[1], 10, 64)
	var after []time.Duration
	defer func() { t.Logf("failed after rank %d's death: %v", gone, after) }()
	for r := range ranks {
		if r == gone {
			continue
		}
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^\[%d\] rank %d: %s failed at (\d+): (.*)$`, r, r, op)).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("rank %d did not fail with the loss:\n%s", r, out)
			continue
		}
		at, _ := strconv.ParseInt(m[1], 10, 64)
		d := time.Duration(at - died)
		after = append(after, d.Round(time.Millisecond))
		if d > lossLimit {
			t.Errorf("rank %d failed %v after rank %d died (limit %v): %s", r, d, gone, lossLimit, m[2])
		}
	}
}

// hierRank is one rank of a runCluster job.
func hierRank(ctx context.Context, mode string) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	c, err := New(ctx, w, Config{Model: Placement, Hierarchy: true})
	if err != nil {
		return err
	}
	defer c.Close()
	if c.hier == nil {
		return fmt.Errorf("rank %d on hosts %v: not hierarchical", w.Rank(), w.Hosts())
	}
	rounds, err := exactRounds(ctx, c)
	if err != nil {
		return err
	}
	if mode == "hier-ops" {
		fmt.Printf("rank %d: %d rounds across hosts exact\n", c.Rank(), rounds)
		return nil
	}
	if mode == "hier-link" {
		return hierLink(ctx, c, w)
	}
	return hierKill(ctx, c, int(mode[len(mode)-1]-'0'))
}

// exactRounds runs the job's rounds (roundsEnv) of postRound and checks
// every result against wantHier for the job's layout (layoutEnv); it
// returns how many rounds ran.
func exactRounds(ctx context.Context, c *Comm) (int, error) {
	var rounds int
	fmt.Sscan(os.Getenv(roundsEnv), &rounds)
	layout := os.Getenv(layoutEnv)
	for i := range rounds {
		got, err := postRound(ctx, c, i)
		if err != nil {
			return i, fmt.Errorf("rank %d round %d (%s): %w", c.Rank(), i, roundOp(i), err)
		}
		if want := wantHier(layout, i); string(got) != string(want) {
			return i, fmt.Errorf("rank %d round %d (%s): got %x, want %x", c.Rank(), i, roundOp(i), got, want)
		}
	}
	return rounds, nil
}

// hierKill has rank gone exit without a word while the others wait for
// it in a barrier, and each say when and how theirs failed.
func hierKill(ctx context.Context, c *Comm, gone int) error {
	if c.Rank() == gone {
		time.Sleep(100 * time.Millisecond)
		fmt.Printf("rank %d exits at %d\n", c.Rank(), time.Now().UnixNano())
		os.Exit(0)
	}
	return reportLoss(c, c.Barrier(ctx))
}

// reportLoss says when and how this rank's collective failed, when it
// failed with a loss or the abort that follows one.
func reportLoss(c *Comm, err error) error {
	at := time.Now().UnixNano()
	switch {
	case err == nil:
		return fmt.Errorf("rank %d: barrier without the dead rank succeeded", c.Rank())
	case errors.Is(err, comm.ErrPeerLost) || errors.Is(err, comm.ErrLinkAborted):
		fmt.Printf("rank %d: barrier failed at %d: %v\n", c.Rank(), at, err)
		return nil
	}
	return fmt.Errorf("rank %d: barrier failed with %w, want the loss", c.Rank(), err)
}

// TestClusterHierLinkDown: h2's link goes down while ranks 0 and 1 on h1
// wait in a two-level barrier for h2's ranks (which wait for a message
// from rank 0 instead): a host that vanishes closes no connection, and
// both must still fail with the loss or the abort that follows it within
// lossLimit.
func TestClusterHierLinkDown(t *testing.T) {
	clusterUp(t, 2)
	agent, err := filepath.Abs(clusterAgent)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(rankEnv, "hier-link")
	t.Setenv(roundsEnv, "20")
	t.Setenv(layoutEnv, "aabb")
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	var out, errOut syncbuf.Buffer
	j := launch.Job{N: 4, Prog: os.Args[0], Args: []string{"-test.run=^$"}, Hosts: []string{"h1", "h1", "h2", "h2"},
		SSH: []string{agent}, Timeout: 40 * time.Second, Stdout: &out, Stderr: &errOut}
	done := make(chan error, 1)
	go func() { done <- j.Run(context.Background()) }()
	deadline := time.Now().Add(25 * time.Second)
	for strings.Count(out.String(), " ready\n") < 4 {
		if time.Now().After(deadline) {
			t.Fatalf("ranks not ready after 25s\nstdout:\n%s\nstderr:\n%s", out.String(), errOut.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond) // into their waits
	at := time.Now()
	if b, err := exec.Command("ip", "link", "set", "plexus-v2", "down").CombinedOutput(); err != nil {
		t.Fatalf("link down: %v\n%s", err, b)
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("job still running 30s after the link went down\nstdout:\n%s", out.String())
	}
	var after []time.Duration
	for r := range 2 {
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^\[%d\] rank %d: barrier failed at (\d+): (.*)$`, r, r)).FindStringSubmatch(out.String())
		if m == nil {
			t.Errorf("rank %d did not fail with the loss:\nstdout:\n%s\nstderr:\n%s", r, out.String(), errOut.String())
			continue
		}
		ns, _ := strconv.ParseInt(m[1], 10, 64)
		d := time.Unix(0, ns).Sub(at)
		after = append(after, d.Round(time.Millisecond))
		if d > lossLimit {
			t.Errorf("rank %d failed %v after the link went down (limit %v): %s", r, d, lossLimit, m[2])
		}
	}
	t.Logf("failed after the link went down: %v", after)
}

// hierLink is a rank of TestClusterHierLinkDown once its rounds are done:
// on h1 it waits in a barrier that h2's ranks never enter; on h2 for a
// message rank 0 never sends. Each says how its wait ended.
func hierLink(ctx context.Context, c *Comm, w *comm.World) error {
	fmt.Printf("rank %d ready\n", c.Rank())
	if c.Rank() >= 2 {
		_, err := w.Recv(ctx, 0, 99, make([]byte, 8))
		fmt.Printf("rank %d: receive ended: %v\n", c.Rank(), err)
		return nil
	}
	return reportLoss(c, c.Barrier(ctx))
}
