//go:build unix

package launch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRunJoins(t *testing.T) {
	var out, errOut lockedBuffer
	j := helperJob(3, "join")
	j.Stdout, j.Stderr = &out, &errOut
	if err := j.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v\nstderr:\n%s", err, errOut.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	slices.Sort(lines)
	if len(lines) != 3 {
		t.Fatalf("stdout has %d lines, want 3:\n%s", len(lines), out.String())
	}
	var job string
	for r, l := range lines {
		prefix := fmt.Sprintf("[%d] rank %d of 3 launcher plexus local %d/3 job ", r, r, r)
		rest, ok := strings.CutPrefix(l, prefix)
		id, book, _ := strings.Cut(rest, " book ")
		if !ok || book != "data-0,data-1,data-2" || (job != "" && id != job) {
			t.Errorf("line %q: want prefix %q, the same job id and the full book", l, prefix)
		}
		job = id
	}
	for r := range 3 {
		if want := fmt.Sprintf("[%d] stderr of rank %d\n", r, r); !strings.Contains(errOut.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut.String())
		}
	}
}

func TestRunFailureKillsOthers(t *testing.T) {
	var out, errOut lockedBuffer
	j := helperJob(3, "fail")
	j.Stdout, j.Stderr, j.Grace = &out, &errOut, time.Second
	start := time.Now()
	err := j.Run(context.Background())
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Rank != 1 || !slices.Equal(ee.Killed, []int{0, 2}) {
		t.Fatalf("Run: %v; want rank 1 failed, ranks 0,2 ended\nstderr:\n%s", err, errOut.String())
	}
	var xe *exec.ExitError
	if !errors.As(err, &xe) || xe.ExitCode() != 3 {
		t.Errorf("Run: %v; want exit status 3", err)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("Run took %v; sleeping ranks were not killed", d)
	}
}

func TestRunTimeout(t *testing.T) {
	j := Job{N: 2, Prog: "sleep", Args: []string{"30"}, Timeout: 200 * time.Millisecond, Grace: 100 * time.Millisecond}
	start := time.Now()
	err := j.Run(context.Background())
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "ended ranks 0,1") {
		t.Errorf("Run: %v; want a timeout that ended ranks 0,1", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run took %v", d)
	}
}

// TestRunGraceKill runs ranks that ignore SIGTERM: SIGKILL must follow.
func TestRunGraceKill(t *testing.T) {
	j := Job{N: 2, Prog: "sh", Args: []string{"-c", `trap "" TERM; [ "$PLEXUS_RANK" = 1 ] && exit 5; sleep 30 & wait; sleep 30`},
		Grace: 200 * time.Millisecond}
	start := time.Now()
	err := j.Run(context.Background())
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Rank != 1 {
		t.Errorf("Run: %v; want rank 1 failed", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Run took %v; SIGKILL did not follow SIGTERM", d)
	}
}

func TestRunForwardsSignals(t *testing.T) {
	var out lockedBuffer
	sigs := make(chan os.Signal, 1)
	j := Job{N: 2, Prog: "sh", Args: []string{"-c", `trap 'echo got USR1; exit 0' USR1; echo ready; while :; do sleep 0.05; done`},
		Stdout: &out, Signals: sigs, Timeout: 10 * time.Second}
	go func() {
		for strings.Count(out.String(), "ready") < 2 {
			time.Sleep(10 * time.Millisecond)
		}
		sigs <- syscall.SIGUSR1
	}()
	if err := j.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, want := range []string{"[0] got USR1", "[1] got USR1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunStartFailure(t *testing.T) {
	err := Job{N: 2, Prog: "/nonexistent/prog"}.Run(context.Background())
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Rank != 0 {
		t.Errorf("Run: %v; want rank 0 failed to start", err)
	}
}

func TestJobValidate(t *testing.T) {
	for _, j := range []Job{{N: 0, Prog: "x"}, {N: 1}, {N: 1, Prog: "x", Timeout: -1}, {N: 1, Prog: "x", Hosts: []string{"a", " "}}} {
		if err := j.Validate(); err == nil {
			t.Errorf("%+v: Validate accepted it", j)
		}
	}
	for _, h := range []string{"", " ", "-V", "-oProxyCommand=touch /tmp/x", "a b", "a\nb"} {
		j := Job{N: 2, Prog: "x", Hosts: []string{"a", h}}
		if err := j.Validate(); !errors.Is(err, ErrBadHost) || !strings.Contains(err.Error(), "host 2") {
			t.Errorf("host %q: Validate gave %v, want ErrBadHost naming host 2", h, err)
		}
	}
}

// TestRunRemovesSegment checks that a job whose ranks opened a
// shared-memory segment and then failed or were killed leaves no segment
// and no doorbell.
func TestRunRemovesSegment(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("shared memory segments are Linux only")
	}
	var out, errOut lockedBuffer
	j := helperJob(2, "shm-fail")
	j.Stdout, j.Stderr, j.Grace = &out, &errOut, time.Second
	var ee *ExitError
	if err := j.Run(context.Background()); !errors.As(err, &ee) || ee.Rank != 1 {
		t.Fatalf("Run: %v; want rank 1 failed\nstderr:\n%s", err, errOut.String())
	}
	_, path, ok := strings.Cut(out.String(), "] segment ")
	path, _, _ = strings.Cut(path, "\n")
	if !ok || path == "" {
		t.Fatalf("no rank reported its segment:\n%s\n%s", out.String(), errOut.String())
	}
	if _, err := os.Stat(path); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("segment %s left after the job: %v", path, err)
	}
	if bells, _ := filepath.Glob(path + ".bell.*"); len(bells) > 0 {
		t.Errorf("doorbells %v left after the job", bells)
	}
}
