package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// bin holds the plexus command and this example, built once.
var bin struct {
	once sync.Once
	dir  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if bin.dir != "" {
		os.RemoveAll(bin.dir)
	}
	os.Exit(code)
}

func build(t *testing.T) string {
	t.Helper()
	bin.once.Do(func() {
		bin.dir, bin.err = os.MkdirTemp("", "plexus-task-example-")
		if bin.err != nil {
			return
		}
		cmd := exec.Command("go", "build", "-o", bin.dir+string(filepath.Separator), "../../cmd/plexus", ".")
		if out, err := cmd.CombinedOutput(); err != nil {
			bin.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if bin.err != nil {
		t.Fatal(bin.err)
	}
	return bin.dir
}

// These tests run the example as a real job of several processes under
// plexus run, as examples/examples_test.go runs the other examples.

// TestLoopAndTree: an unbalanced loop covers every index exactly once
// with steals between processes, and a tree of tasks spawned across
// ranks finishes before any rank's Wait returns.
func TestLoopAndTree(t *testing.T) {
	out := runJob(t, 3, "-n", "3000", "-depth", "10")
	mustContain(t, out, "ParallelFor over 3000 indices on 3 ranks: every index ran exactly once; ranks stole")
	mustContain(t, out, "a tree of 2047 tasks spawning tasks across 3 ranks finished before every Wait returned")
}

// TestLostRank: a rank that exits in the middle of a group makes the
// others' Wait fail with comm.ErrPeerLost, for the master and another.
func TestLostRank(t *testing.T) {
	for _, lose := range []int{0, 2} {
		t.Run(fmt.Sprintf("lose=%d", lose), func(t *testing.T) {
			out := runJob(t, 3, "-lose", fmt.Sprint(lose))
			for r := range 3 {
				if r != lose {
					mustContain(t, out, fmt.Sprintf("rank %d: Wait failed with comm.ErrPeerLost when rank %d died", r, lose))
				}
			}
		})
	}
}

// runJob builds cmd/plexus and this example, runs the example under
// plexus run with n ranks, and returns the ranks' output with the
// "[rank] " prefixes removed.
func runJob(t *testing.T, n int, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a job of several processes")
	}
	dir := build(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	argv := append([]string{"run", "-n", fmt.Sprint(n), "--timeout", "50s", "--", filepath.Join(dir, "task")}, args...)
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "plexus"), argv...)
	cmd.Env = append(os.Environ(), "GORACE=atexit_sleep_ms=0")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("plexus %s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return rankPrefix.ReplaceAllString(string(out), "")
}

var rankPrefix = regexp.MustCompile(`(?m)^\[\d+\] `)

func mustContain(t *testing.T, out, want string) {
	t.Helper()
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
