//go:build linux

package shm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime"
	"sync"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/plexus-hpc/plexus/internal/logtest"
	"github.com/plexus-hpc/plexus/transport/frame"
	"golang.org/x/sys/unix"
)

// childPullLen is the length of the buffer the "pull" child offers.
const childPullLen = 5<<20 + 123

// pullBuffer returns n bytes whose every byte depends on its offset.
func pullBuffer(n int) []byte {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(i*7 + i>>9 + i>>17)
	}
	return b
}

func addrOf(b []byte) uint64 { return uint64(uintptr(unsafe.Pointer(&b[0]))) }

// pullSizes are lengths around page, ring and chunk boundaries.
var pullSizes = []int{0, 1, 7, 8, 4095, 4096, 4097, 28 << 10, 64<<10 + 1, 1 << 20, 4<<20 - 1, 4 << 20}

// waitPullable waits until owner's peer reader has probed it.
func waitPullable(t *testing.T, owner *Endpoint, reader int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !owner.PullableBy(reader) {
		if time.Now().After(deadline) {
			t.Fatalf("rank %d not pullable by rank %d after 5s", owner.Rank(), reader)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestPullSameProcess pulls buffers of many sizes and offsets between two
// endpoints of one process and checks them byte by byte.
func TestPullSameProcess(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	waitPullable(t, eps[0], 1)
	waitPullable(t, eps[1], 0)
	src := pullBuffer(4<<20 + 100)
	for _, n := range pullSizes {
		for _, off := range []int{0, 3, 100} {
			dst := make([]byte, n)
			if err := eps[1].Pull(0, addrOf(src)+uint64(off), dst); err != nil {
				t.Fatalf("pull %d bytes at +%d: %v", n, off, err)
			}
			if !bytes.Equal(dst, src[off:off+n]) {
				t.Fatalf("pull %d bytes at +%d: bytes differ", n, off)
			}
		}
	}
	runtime.KeepAlive(src)
}

// TestPullBadAddress: an address that is not mapped gives an error, not
// a crash, and the peer is not lost for it.
func TestPullBadAddress(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	err := eps[1].Pull(0, 4096, make([]byte, 100))
	if err == nil || errors.Is(err, ErrPeerLost) || errors.Is(err, ErrNoPull) {
		t.Fatalf("pull at an unmapped address = %v, want the kernel's error", err)
	}
	if !eps[0].PullableBy(1) {
		t.Error("peer no longer pullable after a bad address")
	}
}

// TestPullProbeFails: a reader whose reads fail (EPERM, as under Yama's
// ptrace_scope) or find the wrong canary never gets offers, and its Pulls
// fail with ErrNoPull; NoPull does the same by configuration. The reader
// logs why at Warn, except when the peer is gone (ESRCH), which is how a
// job ends and logged at Debug only.
func TestPullProbeFails(t *testing.T) {
	fails := func(err error) func(int, [][]byte, []span) (int, error) {
		return func(int, [][]byte, []span) (int, error) { return 0, err }
	}
	for name, tweak := range map[string]func(c *Config, eps []*Endpoint){
		"eperm":  func(c *Config, _ []*Endpoint) { c.readMem = fails(unix.EPERM) },
		"esrch":  func(c *Config, _ []*Endpoint) { c.readMem = fails(unix.ESRCH) },
		"nopull": func(c *Config, _ []*Endpoint) { c.NoPull = true },
		"canary": func(_ *Config, eps []*Endpoint) { *eps[0].canary ^= 0xff },
	} {
		t.Run(name, func(t *testing.T) {
			dir := shmDir(t)
			eps, _ := openN(t, dir, 1, func(c *Config) { c.Size = 2 })
			eps = append(eps, nil)
			var logs logtest.Sink
			c := Config{Rank: 1, Size: 2, JobID: "test-job", Dir: dir, Deliver: func(int, frame.Header, []byte) {}, Logger: logs.Logger()}
			tweak(&c, eps)
			ep, err := Open(c)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { ep.Close() })
			src := pullBuffer(64)
			if err := ep.Pull(0, addrOf(src), make([]byte, 64)); !errors.Is(err, ErrNoPull) {
				t.Errorf("Pull = %v, want ErrNoPull", err)
			}
			if eps[0].PullableBy(1) {
				t.Error("rank 0 would offer its buffers to a rank that cannot read them")
			}
			waitPullable(t, ep, 0) // the other direction is unaffected
			want := 0
			if name == "eperm" || name == "canary" {
				want = 1
			}
			if got := logs.Lines(slog.LevelInfo); len(got) != want {
				t.Errorf("logged %q at Info or above, want %d warnings", got, want)
			}
		})
	}
}

// TestPullReusedPID: a canary that changes after the probe (the pid now
// belongs to another process) makes the next Pull lose the peer.
func TestPullReusedPID(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	src := pullBuffer(1000)
	if err := eps[1].Pull(0, addrOf(src), make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	*eps[0].canary ^= 1
	if err := eps[1].Pull(0, addrOf(src), make([]byte, 1000)); !errors.Is(err, ErrPeerLost) {
		t.Fatalf("Pull after the canary changed = %v, want ErrPeerLost", err)
	}
	select {
	case <-sinks[1].lost:
	case <-time.After(5 * time.Second):
		t.Fatal("peer with a foreign canary not reported lost")
	}
}

// TestPullClosedPeer: a peer that closed cannot be pulled from, since its
// buffers may be reused.
func TestPullClosedPeer(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	src := pullBuffer(100)
	eps[0].Close()
	if err := eps[1].Pull(0, addrOf(src), make([]byte, 100)); !errors.Is(err, ErrPeerLost) {
		t.Fatalf("Pull from a closed peer = %v, want ErrPeerLost", err)
	}
	if eps[1].PullableBy(0) {
		t.Error("closed peer still pullable")
	}
}

// TestPullSecondProcess pulls a real second process's buffer, at sizes
// around the boundaries, then kills it: the next Pull fails with
// ErrPeerLost, never crashes or hangs.
func TestPullSecondProcess(t *testing.T) {
	ep, s, cmd := startChild(t, "pull")
	offer := s.wait(t, 1, 10*time.Second)[0].h
	if offer.Seq != childPullLen {
		t.Fatalf("offer of %d bytes, want %d", offer.Seq, childPullLen)
	}
	want := pullBuffer(childPullLen)
	for _, n := range append(pullSizes, childPullLen) {
		off := (childPullLen - n) / 2
		dst := make([]byte, n)
		if err := ep.Pull(1, offer.Aux+uint64(off), dst); err != nil {
			t.Fatalf("pull %d bytes: %v", n, err)
		}
		if i := firstDiff(dst, want[off:off+n]); i >= 0 {
			t.Fatalf("pull %d bytes at %d: byte %d is %d, want %d", n, off, i, dst[i], want[off+i])
		}
	}
	waitPullable(t, ep, 1)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		err := ep.Pull(1, offer.Aux, make([]byte, 1<<20))
		if errors.Is(err, ErrPeerLost) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("Pull from a killed process = %v after 5s, want ErrPeerLost", err)
		}
	}
	if ep.Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, nil) == nil && ep.PullableBy(1) {
		t.Error("killed peer still pullable")
	}
}

func firstDiff(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	if len(a) != len(b) {
		return min(len(a), len(b))
	}
	return -1
}

// TestPullChunked: a pull longer than maxRawRead takes several system
// calls of at most maxRawRead bytes each, and only the last reads the
// canary; an owner whose canary changes between two of them (its pid
// taken over meanwhile) is still caught, by that last call.
func TestPullChunked(t *testing.T) {
	var mu sync.Mutex // the probes at Open and on the monitor's ticks call too
	var calls [][]int
	var between func()
	record := func(pid int, local [][]byte, remote []span) (int, error) {
		var lens []int
		for _, b := range local {
			lens = append(lens, len(b))
		}
		mu.Lock()
		if len(lens) == 1 && between != nil && len(calls) > 0 {
			between()
		}
		calls = append(calls, lens)
		mu.Unlock()
		return vmRead(pid, local, remote)
	}
	eps, _ := openN(t, shmDir(t), 2, func(c *Config) { c.readMem = record })
	waitPullable(t, eps[0], 1) // both probes done: no other calls from here on
	waitPullable(t, eps[1], 0)
	n := 2*maxRawRead + maxRawRead/2 + 5
	src := pullBuffer(n)
	dst := make([]byte, n)
	mu.Lock()
	calls = nil
	mu.Unlock()
	if err := eps[1].Pull(0, addrOf(src), dst); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(dst, src) {
		t.Fatal("bytes differ")
	}
	want := [][]int{{maxRawRead}, {maxRawRead}, {maxRawRead/2 + 5, 8}}
	if fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Fatalf("system calls read %v, want %v (data, then data and canary)", calls, want)
	}

	mu.Lock()
	calls = nil
	between = func() { *eps[0].canary ^= 1 }
	mu.Unlock()
	if err := eps[1].Pull(0, addrOf(src), dst); !errors.Is(err, ErrPeerLost) {
		t.Fatalf("Pull whose owner's canary changed half way = %v, want ErrPeerLost", err)
	}
	runtime.KeepAlive(src)
}
