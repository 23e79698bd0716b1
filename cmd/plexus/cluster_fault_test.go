//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/comm"
)

// lossLimit is how soon after a fault every rank waiting on a rank it
// cut off must fail with comm.ErrPeerLost.
const lossLimit = 2 * time.Second

// TestRunLosesRank kills rank 3 (on h2) in the middle of a job of
// TestRunOnTwoHosts' shape, while every other rank waits for a message
// from it: ranks 0 and 1 over TCP from h1, rank 2 over shared memory on
// h2. Each must fail with ErrPeerLost within lossLimit, and plexus run
// must exit non-zero.
func TestRunLosesRank(t *testing.T) {
	runFault(t, "kill", func(pids []int) error {
		return syscall.Kill(pids[3], syscall.SIGKILL)
	}, map[int]int{0: 3, 1: 3, 2: 3})
}

// TestRunLosesHost sets h2's link down in the middle of a job while
// ranks 0 and 1 on h1 wait for rank 3 and ranks 2 and 3 on h2 wait for
// rank 0: a host that vanishes closes no connection, and each rank must
// still fail with ErrPeerLost within lossLimit (the kernel's
// TCP_USER_TIMEOUT notices the heartbeats go unacknowledged), and plexus
// run must exit non-zero.
func TestRunLosesHost(t *testing.T) {
	runFault(t, "link", func([]int) error {
		return exec.Command("ip", "link", "set", "plexus-v2", "down").Run()
	}, map[int]int{0: 3, 1: 3, 2: 0, 3: 0})
}

// runFault runs 4 ranks in fault mode on h1 and h2 through plexus run,
// calls fault with their process ids once all are waiting, and checks
// that rank r reports the loss of rank lost[r] within lossLimit.
func runFault(t *testing.T, mode string, fault func(pids []int) error, lost map[int]int) {
	_, hostfile, agent := twoHostJob(t, 2)
	t.Setenv(rankEnv, "fault-"+mode)
	t.Setenv("GORACE", "atexit_sleep_ms=0")
	out := &readyWriter{want: 4, ready: make(chan struct{})}
	var errOut bytes.Buffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"run", "--hostfile", hostfile, "--rsh", agent, "-n", "4", "--timeout", "20s",
			"--", os.Args[0], "-test.run=^$"}, out, &errOut)
	}()
	var at time.Time
	select {
	case <-out.ready:
		at = time.Now()
		if err := fault(out.pids()); err != nil {
			t.Errorf("fault: %v", err)
		}
	case code := <-done:
		t.Fatalf("plexus run exit %d before the fault\nstdout:\n%s\nstderr:\n%s", code, out.String(), errOut.String())
	case <-time.After(25 * time.Second):
		t.Fatalf("ranks not ready after 25s\nstdout:\n%s", out.String())
	}
	var code int
	select {
	case code = <-done:
	case <-time.After(25 * time.Second):
		t.Fatalf("plexus run still running 25s after the fault\nstdout:\n%s", out.String())
	}
	if code == exitOK {
		t.Errorf("plexus run exit %d after losing a rank, want non-zero", code)
	}
	checkLoss(t, out.String()+errOut.String(), at, lost)
}

// checkLoss checks that rank r reported losing rank lost[r] with
// ErrPeerLost within lossLimit of the fault at at.
func checkLoss(t *testing.T, out string, at time.Time, lost map[int]int) {
	t.Helper()
	var worst time.Duration
	var all []time.Duration
	for r, p := range lost {
		m := regexp.MustCompile(fmt.Sprintf(`(?m)^\[%d\] rank %d lost rank %d at (\d+): peer lost (true|false): (.*)$`, r, r, p)).FindStringSubmatch(out)
		if m == nil {
			t.Errorf("rank %d did not report losing rank %d:\n%s", r, p, out)
			continue
		}
		ns, _ := strconv.ParseInt(m[1], 10, 64)
		d := time.Unix(0, ns).Sub(at)
		worst = max(worst, d)
		all = append(all, d.Round(time.Millisecond))
		if m[2] != "true" || d > lossLimit {
			t.Errorf("rank %d lost rank %d after %v (limit %v), ErrPeerLost %s: %s", r, p, d, lossLimit, m[2], m[3])
		}
	}
	t.Logf("detection after the fault: %v, slowest %v", all, worst)
}

// readyWriter is plexus run's standard output: it closes ready once want
// ranks said "ready", and keeps their process ids.
type readyWriter struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	want  int
	ready chan struct{}
}

var readyLine = regexp.MustCompile(`(?m)^\[\d+\] rank (\d+) pid (\d+) ready$`)

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.want > 0 && len(readyLine.FindAllString(w.buf.String(), -1)) == w.want {
		w.want = 0
		close(w.ready)
	}
	return len(p), nil
}

func (w *readyWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// pids returns the ranks' process ids, by rank.
func (w *readyWriter) pids() []int {
	var pids []int
	for _, m := range readyLine.FindAllStringSubmatch(w.String(), -1) {
		r, _ := strconv.Atoi(m[1])
		pid, _ := strconv.Atoi(m[2])
		for len(pids) <= r {
			pids = append(pids, 0)
		}
		pids[r] = pid
	}
	return pids
}

// faultRank is a rank of TestRunLosesRank ("kill") or TestRunLosesHost
// ("link"): after an exchange that connects every pair, it says it is
// ready and waits for a message nobody sends, from rank 3 or, in "link"
// mode on h2, from rank 0, and reports how that ended. It ignores
// plexus run's SIGTERM, to report its own finding.
func faultRank(mode string) int {
	if mode == "stranger" {
		return strangerRank()
	}
	signal.Ignore(syscall.SIGTERM)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	w, err := comm.Join(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer w.Close()
	if err := greetAll(ctx, w); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Printf("rank %d pid %d ready\n", w.Rank(), os.Getpid())
	from := 3
	if mode == "link" && w.Rank() >= 2 {
		from = 0
	}
	if w.Rank() == from {
		<-ctx.Done()
		return 1
	}
	_, err = w.Recv(ctx, from, 99, make([]byte, 8))
	fmt.Printf("rank %d lost rank %d at %d: peer lost %v: %v\n", w.Rank(), from, time.Now().UnixNano(), errors.Is(err, comm.ErrPeerLost), err)
	return 3
}

// greetAll sends every other rank a greeting and receives theirs.
func greetAll(ctx context.Context, w *comm.World) error {
	var reqs []*comm.Request
	for p := range w.Size() {
		if p != w.Rank() {
			req, err := w.Isend(p, 0, greeting(w.Rank(), p))
			if err != nil {
				return err
			}
			reqs = append(reqs, req)
		}
	}
	for p := range w.Size() {
		if p != w.Rank() {
			if _, err := w.Recv(ctx, p, 0, make([]byte, 64)); err != nil {
				return err
			}
		}
	}
	_, err := comm.Waitall(ctx, reqs...)
	return err
}
