//go:build linux

package affinity

import (
	"errors"
	"os"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// onThread runs f on a fresh goroutine and waits, so pinning in tests never
// touches the test's own goroutine or thread.
func onThread(f func()) {
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	<-done
}

// lastCPU reads field 39 ("processor") of /proc/thread-self/stat.
func lastCPU(t *testing.T) int {
	b, err := os.ReadFile("/proc/thread-self/stat")
	if err != nil {
		t.Skipf("no /proc/thread-self/stat: %v", err)
	}
	s := string(b)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	cpu, err := strconv.Atoi(fields[39-3])
	if err != nil {
		t.Fatalf("stat field 39 %q: %v", fields[39-3], err)
	}
	return cpu
}

func mask(t *testing.T) unix.CPUSet {
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatalf("sched_getaffinity: %v", err)
	}
	return set
}

func TestPinEachAllowedCPU(t *testing.T) {
	cpus, err := Allowed()
	if err != nil || len(cpus) == 0 {
		t.Fatalf("Allowed() = %v, %v", cpus, err)
	}
	for _, cpu := range cpus {
		onThread(func() { checkPin(t, cpu) })
	}
}

func checkPin(t *testing.T, cpu int) {
	unpin, err := Pin(cpu)
	if err != nil {
		t.Errorf("Pin(%d): %v", cpu, err)
		return
	}
	var want unix.CPUSet
	want.Set(cpu)
	if got := mask(t); got != want {
		t.Errorf("Pin(%d): mask has %d CPUs, want only %d", cpu, got.Count(), cpu)
	}
	for i := 0; i < 1000; i++ {
		unix.Getpid() // a syscall gives the kernel a chance to migrate us
	}
	if got := lastCPU(t); got != cpu {
		t.Errorf("Pin(%d): thread last ran on CPU %d", cpu, got)
	}
	unpin()
	unpin()
}

func TestUnpinRestoresMask(t *testing.T) {
	cpus, _ := Allowed()
	onThread(func() {
		before := mask(t)
		unpin, err := Pin(cpus[len(cpus)-1])
		if err != nil {
			t.Fatalf("Pin: %v", err)
		}
		unpin()
		if after := mask(t); after != before {
			t.Errorf("after unpin mask has %d CPUs, want %d", after.Count(), before.Count())
		}
	})
}

func TestPinRejects(t *testing.T) {
	bad := []int{-1, 1 << 20, maxCPU}
	if c := firstDisallowed(); c >= 0 {
		bad = append(bad, c)
	}
	for _, cpu := range bad {
		onThread(func() {
			before := mask(t)
			unpin, err := Pin(cpu)
			if !errors.Is(err, ErrNotAllowed) {
				t.Errorf("Pin(%d) = %v, want ErrNotAllowed", cpu, err)
			}
			unpin() // must be a harmless no-op
			if after := mask(t); after != before {
				t.Errorf("Pin(%d) failed but changed the mask", cpu)
			}
		})
	}
}

// firstDisallowed returns a CPU number outside the process mask, or -1.
func firstDisallowed() int {
	for c := 0; c < maxCPU; c++ {
		if !initial.IsSet(c) {
			return c
		}
	}
	return -1
}

// TestPinSet checks that a set pins the thread to exactly those CPUs and
// that a set with one bad or no CPU is refused without touching the mask.
func TestPinSet(t *testing.T) {
	cpus, _ := Allowed()
	set := cpus[:(len(cpus)+1)/2]
	onThread(func() {
		before := mask(t)
		unpin, err := PinSet(set)
		if err != nil {
			t.Fatalf("PinSet(%v): %v", set, err)
		}
		var want unix.CPUSet
		for _, c := range set {
			want.Set(c)
		}
		if got := mask(t); got != want {
			t.Errorf("PinSet(%v): mask has %d CPUs, want %d", set, got.Count(), len(set))
		}
		unpin()
		if after := mask(t); after != before {
			t.Errorf("after unpin mask has %d CPUs, want %d", after.Count(), before.Count())
		}
	})
	for _, bad := range [][]int{nil, {cpus[0], -1}, {cpus[0], maxCPU}} {
		onThread(func() {
			before := mask(t)
			unpin, err := PinSet(bad)
			if !errors.Is(err, ErrNotAllowed) {
				t.Errorf("PinSet(%v) = %v, want ErrNotAllowed", bad, err)
			}
			unpin()
			if after := mask(t); after != before {
				t.Errorf("PinSet(%v) failed but changed the mask", bad)
			}
		})
	}
}
