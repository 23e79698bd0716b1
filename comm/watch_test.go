package comm

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"
)

// TestBlockedRecvStack checks that a goroutine blocked in Recv keeps the
// smallest stack, even with one CPU: 2 KiB, plus the few that polled
// (about 2150 bytes on average here). With the old three-way select
// every such goroutine averaged 2300-2340 bytes here, and a million
// receivers of examples/million needed 3.7 KiB each. The runtime's starting stack size follows the average
// stack of the goroutines it saw at the last collection, so the check
// runs in a fresh copy of the test binary with that adaptation off.
func TestBlockedRecvStack(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's goroutines start with bigger stacks")
	}
	if os.Getenv(stackChildEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestBlockedRecvStack$", "-test.count=1")
		cmd.Env = append(os.Environ(), stackChildEnv+"=1", "GODEBUG=adaptivestackstart=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	mk, ok := makers["shm"]
	if !ok {
		t.Skip("no shared-memory worlds on this system")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	ws := mk(t, 2, Config{}).ws
	ctx := testCtx(t)
	const n = 20000
	var wg sync.WaitGroup
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for tag := range n {
		wg.Go(func() {
			if _, err := ws[1].Recv(ctx, 0, tag, make([]byte, 8)); err != nil {
				t.Error(err)
			}
		})
	}
	for deadline := time.Now().Add(10 * time.Second); ws[1].sleepers.Load() < n && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	runtime.ReadMemStats(&after)
	per := float64(after.StackInuse-before.StackInuse) / n
	for tag := range n {
		if err := ws[0].Send(ctx, 1, tag, payload(0, tag, 8)); err != nil {
			t.Fatal(err)
		}
	}
	wg.Wait()
	t.Logf("%.0f bytes of stack per goroutine blocked in Recv", per)
	if per > 2250 {
		t.Errorf("a goroutine blocked in Recv holds %.0f bytes of stack, want about 2 KiB", per)
	}
}

// stackChildEnv marks the copy of the test binary that measures stacks.
const stackChildEnv = "COMM_STACK_CHILD"

// TestWatchLists checks the sleepers' lists: cancelling one context
// withdraws the receives sleeping under it and no others, and the world
// keeps no list once nobody sleeps.
func TestWatchLists(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{})
	a, cancelA := context.WithCancel(context.Background())
	b, cancelB := context.WithCancel(context.Background())
	defer cancelB()
	const n = 50
	errs := make(chan error, 2*n)
	for i := range 2 * n {
		ctx := a
		if i%2 == 1 {
			ctx = b
		}
		go func() { _, err := ws[1].Recv(ctx, 0, i, nil); errs <- err }()
	}
	for deadline := time.Now().Add(5 * time.Second); ws[1].sleepers.Load() < 2*n && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	cancelA()
	for range n {
		if err := <-errs; !errors.Is(err, context.Canceled) {
			t.Fatalf("receive under the cancelled context: %v", err)
		}
	}
	select {
	case err := <-errs:
		t.Fatalf("a receive under the live context returned: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	for i := 1; i < 2*n; i += 2 {
		if err := ws[0].Send(context.Background(), 1, i, nil); err != nil {
			t.Fatal(err)
		}
	}
	for range n {
		if err := <-errs; err != nil {
			t.Fatalf("receive under the live context: %v", err)
		}
	}
	ws[1].watch.mu.Lock()
	defer ws[1].watch.mu.Unlock()
	if len(ws[1].watch.lists) != 0 {
		t.Errorf("%d lists left with nobody sleeping", len(ws[1].watch.lists))
	}
}
