//go:build linux

package affinity

import (
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestBindProcess binds a child process (this test binary, rerun) to one
// CPU while it has several threads, starts more, and checks that every
// thread's mask is that CPU: the test's own process is never bound.
func TestBindProcess(t *testing.T) {
	if os.Getenv("AFFINITY_BIND_CHILD") != "" {
		bindChild()
		return
	}
	cpus, err := Allowed()
	if err != nil || len(cpus) < 2 {
		t.Skipf("needs two CPUs to tell a bound thread (allowed %v, %v)", cpus, err)
	}
	last := cpus[len(cpus)-1]
	cmd := exec.Command(os.Args[0], "-test.run", "^TestBindProcess$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("AFFINITY_BIND_CHILD=%d", last))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	want := fmt.Sprintf("thread mask %d", last)
	lines := 0
	for _, l := range strings.Split(string(out), "\n") {
		if !strings.HasPrefix(l, "thread mask ") {
			continue
		}
		lines++
		if l != want {
			t.Errorf("a thread of the bound process: %q, want %q", l, want)
		}
	}
	if lines < 3 {
		t.Errorf("child reported %d threads, want at least 3:\n%s", lines, out)
	}
}

// bindChild runs in the child: threads before and after BindProcess,
// then every thread's mask.
func bindChild() {
	var cpu int
	fmt.Sscan(os.Getenv("AFFINITY_BIND_CHILD"), &cpu)
	hold := make(chan struct{})
	var wg sync.WaitGroup
	lockThreads := func(n int) {
		for range n {
			wg.Add(1)
			go func() {
				runtime.LockOSThread() // a thread of its own until hold closes
				wg.Done()
				<-hold
			}()
		}
		wg.Wait()
	}
	lockThreads(2)
	if err := BindProcess([]int{cpu}); err != nil {
		fmt.Println("BindProcess:", err)
		os.Exit(1)
	}
	lockThreads(2) // made by bound threads
	if got, err := ProcessCPUs(); err != nil || len(got) != 1 || got[0] != cpu {
		fmt.Printf("ProcessCPUs after BindProcess: %v, %v\n", got, err)
		os.Exit(1)
	}
	tids, err := threads()
	if err != nil {
		fmt.Println(err)
		os.Exit(1)
	}
	for _, tid := range tids {
		b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/status", tid))
		if err != nil {
			continue // exited
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "Cpus_allowed_list:"); ok {
				fmt.Println("thread mask " + strings.TrimSpace(v))
			}
		}
	}
	close(hold)
}

func TestBindProcessRejects(t *testing.T) {
	if err := BindProcess(nil); err == nil {
		t.Error("BindProcess(nil) succeeded")
	}
	if err := BindProcess([]int{-1}); err == nil {
		t.Error("BindProcess([-1]) succeeded")
	}
}
