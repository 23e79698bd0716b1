//go:build linux

package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/jobtest"
)

// slurmScript starts Slurm on the namespace hosts (testdata/cluster).
const slurmScript = "../../testdata/cluster/slurm.sh"

// slurmConf is where slurm.sh writes the configuration clients read.
const slurmConf = "/run/plexus-slurm/slurm.conf"

// TestSlurm runs 4 ranks on the namespace hosts h1 and h2 under Slurm,
// which it starts once for its subtests: srun, an sbatch script that
// calls srun, plexus run under salloc, the applications under srun, and
// under srun a rank killed and a host cut off.
func TestSlurm(t *testing.T) {
	s := slurmUp(t)
	t.Run("srun", s.testSrun)
	t.Run("apps under srun", s.testApps)
	t.Run("sbatch", s.testSbatch)
	t.Run("plexus run under salloc", s.testRunInAllocation)
	t.Run("srun loses rank", s.testSrunLosesRank)
	t.Run("srun loses host", s.testSrunLosesHost)
}

// slurm is a Slurm cluster of slurm.sh: its hosts' agent, and a
// directory for the test's files.
type slurm struct {
	agent, dir string
}

// slurmUp starts Slurm on two namespace hosts and stops it after the
// test, or skips when Slurm is not installed or the hosts cannot be made.
func slurmUp(t *testing.T) slurm {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no Slurm cluster")
	}
	if os.Geteuid() != 0 {
		t.Skip("Slurm on the namespace cluster (testdata/cluster/slurm.sh) needs root")
	}
	for _, prog := range []string{"ip", "srun", "sbatch", "salloc", "slurmctld", "slurmd", "munged"} {
		if _, err := exec.LookPath(prog); err != nil {
			t.Skipf("no %s here: slurm.sh needs iproute2, slurm-wlm and munge (slurm.sh up installs the last two, as .ci/run does)", prog)
		}
	}
	agent, err := filepath.Abs("../../testdata/cluster/agent")
	if err != nil {
		t.Fatal(err)
	}
	jobtest.LockCluster(t) // slurm.sh brings the namespace cluster up
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if b, err := exec.CommandContext(ctx, slurmScript, "up", "2").CombinedOutput(); err != nil {
		exec.Command(slurmScript, "down").Run()
		t.Skipf("cannot start Slurm on namespace hosts here: %v\n%s", err, b)
	}
	t.Cleanup(func() {
		if b, err := exec.Command(slurmScript, "down").CombinedOutput(); err != nil {
			t.Errorf("slurm.sh down: %v\n%s", err, b)
		}
	})
	return slurm{agent: agent, dir: t.TempDir()}
}

// command runs a Slurm client on host h1, the login node, with the
// test binary's environment plus SLURM_CONF and env. args are words,
// quoted for the agent's shell.
func (s slurm) command(ctx context.Context, env []string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, s.agent, append([]string{"h1"}, quoteAll(args)...)...)
	cmd.Env = append(append(os.Environ(), "SLURM_CONF="+slurmConf, "GORACE=atexit_sleep_ms=0"), env...)
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

func quoteAll(words []string) []string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return q
}

// testSrun: srun -N 2 -n 4 starts the ranks of TestRunOnTwoHosts, 2 on
// each host, which find rank 0 from Slurm's variables and PLEXUS_SECRET
// alone.
func (s slurm) testSrun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := s.command(ctx, []string{rankEnv + "=cluster", "PLEXUS_SECRET=" + newSecret(t)},
		"srun", "-N", "2", "-n", "4", "--label", os.Args[0], "-test.run=^$")
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("srun: %v\n%s", err, b)
	}
	checkHosts(t, unlabel(string(b)), []string{"h1", "h1", "h2", "h2"})
}

// testApps runs graph bfs and uts (appRuns) as 2 ranks on each host
// under srun -N 2 -n 4.
func (s slurm) testApps(t *testing.T) {
	for _, app := range appRuns(benchBinary(t)) {
		t.Run(app.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			cmd := s.command(ctx, []string{"PLEXUS_SECRET=" + newSecret(t)},
				append([]string{"srun", "-N", "2", "-n", "4", "--label"}, app.args...)...)
			b, err := cmd.Output()
			if err != nil {
				t.Fatalf("srun: %v\n%s", err, b)
			}
			app.check(t, rank0(unlabel(string(b))), 4)
		})
	}
}

// srunLabel is the prefix srun --label puts on each line: the task's
// rank, right-aligned.
var srunLabel = regexp.MustCompile(`(?m)^ *(\d+): `)

// unlabel turns srun --label's "R: " prefixes into plexus run's "[R] ".
func unlabel(out string) string { return srunLabel.ReplaceAllString(out, "[$1] ") }

// sbatchScript is the job script a user would write: 4 tasks on 2
// nodes, a fresh secret for the job, and srun to start the ranks.
const sbatchScript = `#!/bin/sh
#SBATCH --nodes=2 --ntasks=4 --time=1
PLEXUS_SECRET=$(od -An -tx1 -N32 /dev/urandom | tr -d ' \n')
export PLEXUS_SECRET
srun --label %s '-test.run=^$'
`

// testSbatch submits sbatchScript, waits for the job to end and checks
// its output file.
func (s slurm) testSbatch(t *testing.T) {
	script, out := filepath.Join(s.dir, "job.sh"), filepath.Join(s.dir, "job.out")
	if err := os.WriteFile(script, fmt.Appendf(nil, sbatchScript, os.Args[0]), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	b, err := s.command(ctx, []string{rankEnv + "=cluster"}, "sbatch", "--parsable", "--output", out, script).Output()
	if err != nil {
		t.Fatalf("sbatch: %v\n%s", err, b)
	}
	job := strings.TrimSpace(string(b))
	state := s.waitJob(ctx, t, job)
	res, err := os.ReadFile(out)
	if err != nil || state != "COMPLETED" {
		t.Fatalf("job %s ended %s; output (%v):\n%s", job, state, err, res)
	}
	checkHosts(t, unlabel(string(res)), []string{"h1", "h1", "h2", "h2"})
}

// waitJob polls scontrol until job has ended and returns its state
// (COMPLETED, FAILED, ...). sbatch --wait would poll too, but at most
// every few seconds.
func (s slurm) waitJob(ctx context.Context, t *testing.T, job string) string {
	t.Helper()
	stateRE := regexp.MustCompile(`JobState=(\S+)`)
	for {
		b, err := s.command(ctx, nil, "scontrol", "show", "job", "-o", job).CombinedOutput()
		m := stateRE.FindSubmatch(b)
		switch {
		case err == nil && m == nil:
			t.Fatalf("scontrol show job %s says no state:\n%s", job, b)
		case m != nil && !slurmActive[string(m[1])]:
			return string(m[1])
		}
		select {
		case <-ctx.Done():
			t.Fatalf("job %s still %s: %v (scontrol: %v)", job, m, ctx.Err(), err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// slurmActive are the states of a job that has not ended.
var slurmActive = map[string]bool{"PENDING": true, "CONFIGURING": true, "RUNNING": true, "COMPLETING": true}

// testRunInAllocation runs plexus run, without hosts or -n, as salloc's
// command on h1: it takes the allocation's 4 slots on h1 and h2, starts
// the ranks on h2 through srun, and says so.
func (s slurm) testRunInAllocation(t *testing.T) {
	plexusBin := buildPlexus(t, s.dir)
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := s.command(ctx, []string{rankEnv + "=cluster"}, "salloc", "-N", "2", "-n", "4", "--quiet",
		plexusBin, "run", "--timeout", "20s", "--", os.Args[0], "-test.run=^$")
	var out, errOut strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("salloc plexus run: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errOut.String())
	}
	said := regexp.MustCompile(`(?m)^plexus run: in Slurm job \d+ on h\[1-2\] \(4 slots: h1 x2, h2 x2\): 4 ranks on its hosts, started through srun`)
	if !said.MatchString(errOut.String()) {
		t.Errorf("plexus run did not say it runs in the allocation:\n%s", errOut.String())
	}
	checkHosts(t, out.String(), []string{"h1", "h1", "h2", "h2"})
}

// buildPlexus builds the plexus command into dir, as a user would have
// it on a cluster, and returns its path.
func buildPlexus(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "plexus")
	if b, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, b)
	}
	return bin
}

// testSrunLosesRank kills rank 3 (on h2) of a step of srun -N 2 -n 4 in
// the middle of the job, as TestRunLosesRank does under plexus run:
// every other rank fails with ErrPeerLost within lossLimit, and srun
// exits non-zero.
func (s slurm) testSrunLosesRank(t *testing.T) {
	s.srunFault(t, "kill", func(pids []int) error {
		return syscall.Kill(pids[3], syscall.SIGKILL)
	}, map[int]int{0: 3, 1: 3, 2: 3})
}

// testSrunLosesHost sets h2's link down for 3 s in the middle of a step,
// as TestRunLosesHost does under plexus run: ranks 0 and 1 wait for rank
// 3, ranks 2 and 3 for rank 0, and each must fail with ErrPeerLost within
// lossLimit. Slurm itself cannot hear from h2 meanwhile, so the link
// comes back for srun to collect h2's exits and output; srun, with
// --kill-on-bad-exit, must then end the step non-zero. (A host gone for
// good ends the step only once slurmctld declares it failed, after
// SlurmdTimeout.)
func (s slurm) testSrunLosesHost(t *testing.T) {
	s.srunFault(t, "link", func([]int) error {
		if err := exec.Command("ip", "link", "set", "plexus-v2", "down").Run(); err != nil {
			return err
		}
		time.AfterFunc(3*time.Second, func() { exec.Command("ip", "link", "set", "plexus-v2", "up").Run() })
		return nil
	}, map[int]int{0: 3, 1: 3, 2: 0, 3: 0})
}

// srunFault runs 4 ranks in fault mode under srun on h1 and h2, calls
// fault with their process ids once all are waiting, and checks that
// rank r reports the loss of rank lost[r] within lossLimit and that srun
// exits non-zero.
func (s slurm) srunFault(t *testing.T, mode string, fault func(pids []int) error, lost map[int]int) {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	cmd := s.command(ctx, []string{rankEnv + "=fault-" + mode, "PLEXUS_SECRET=" + newSecret(t)},
		"srun", "-N", "2", "-n", "4", "--kill-on-bad-exit=1", "--label", os.Args[0], "-test.run=^$")
	out := &readyWriter{want: 4, ready: make(chan struct{})}
	lw := &unlabelWriter{w: out}
	cmd.Stdout, cmd.Stderr = lw, lw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var at time.Time
	select {
	case <-out.ready:
		at = time.Now()
		if err := fault(out.pids()); err != nil {
			t.Errorf("fault: %v", err)
		}
	case err := <-done:
		t.Fatalf("srun ended (%v) before the fault:\n%s", err, out.String())
	case <-time.After(25 * time.Second):
		t.Fatalf("ranks not ready after 25s:\n%s", out.String())
	}
	select {
	case err := <-done:
		if err == nil {
			t.Errorf("srun exit 0 after losing a rank, want non-zero")
		}
	case <-time.After(25 * time.Second):
		t.Fatalf("srun still running 25s after the fault:\n%s", out.String())
	}
	checkLoss(t, out.String(), at, lost)
}

// unlabelWriter passes whole lines on to w with srun --label's prefixes
// made plexus run's; srun's two streams share it.
type unlabelWriter struct {
	mu   sync.Mutex
	w    io.Writer
	part []byte
}

func (u *unlabelWriter) Write(p []byte) (int, error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.part = append(u.part, p...)
	if i := strings.LastIndexByte(string(u.part), '\n'); i >= 0 {
		io.WriteString(u.w, unlabel(string(u.part[:i+1])))
		u.part = append(u.part[:0], u.part[i+1:]...)
	}
	return len(p), nil
}
