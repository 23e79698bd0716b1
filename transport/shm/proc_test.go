//go:build linux

package shm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"testing"
	"time"
	"unsafe"

	"github.com/plexus-hpc/plexus/internal/logtest"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// The test binary re-executed as rank 1 of a job with the test process:
// childEnv names the mode, childDir the segment directory.
const (
	childEnv = "PLEXUS_SHM_CHILD"
	childDir = "PLEXUS_SHM_DIR"
	stopTag  = -1
)

// runChild is the second process: "echo" sends every frame back until one
// tagged stopTag; "stream" sends 64 KiB frames until it fails; "pull"
// offers a buffer (pullBuffer) to be pulled and waits for stopTag;
// "sendexit" sends lateFrames and exits at once (stale_test.go);
// "truncate" is runTruncate (fault_test.go).
func runChild(mode string) int {
	if mode == "truncate" {
		return runTruncate(os.Getenv(truncateEnv), os.Getenv(childDir))
	}
	done := make(chan struct{})
	opened := make(chan struct{}) // closed once ep is set: Deliver may run before Open returns
	var ep *Endpoint
	cfg := Config{Rank: 1, Size: 2, JobID: "proc-job", Dir: os.Getenv(childDir),
		Lost: func(int, error) {},
		Deliver: func(peer int, h frame.Header, p []byte) {
			if mode == "echo" {
				<-opened
				ep.Send(context.Background(), peer, h, p)
			}
			if h.Tag == stopTag {
				close(done)
			}
		}}
	ep, err := Open(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 1
	}
	close(opened)
	defer ep.Close()
	if mode == "pull" {
		buf := pullBuffer(childPullLen)
		defer runtime.KeepAlive(buf)
		h := frame.Header{Kind: frame.Eager, Aux: uint64(uintptr(unsafe.Pointer(&buf[0]))), Seq: uint64(len(buf))}
		if err := ep.Send(context.Background(), 0, h, nil); err != nil {
			return 1
		}
	}
	if mode == "sendexit" {
		return sendAndExit(ep)
	}
	if mode == "stream" {
		for seq := uint64(0); ; seq++ {
			if err := ep.Send(context.Background(), 0, frame.Header{Kind: frame.Data, Seq: seq}, make([]byte, 64<<10)); err != nil {
				return 0
			}
		}
	}
	select {
	case <-done:
	case <-time.After(30 * time.Second):
	}
	time.Sleep(10 * time.Millisecond)
	return 0
}

// startChild opens rank 0 in a fresh directory and starts the child as
// rank 1; the child is reaped (so kill(pid, 0) sees it gone) in the
// background.
func startChild(t testing.TB, mode string) (*Endpoint, *sink, *exec.Cmd) {
	dir := shmDir(t)
	s := newSink()
	ep, err := Open(Config{Rank: 0, Size: 2, JobID: "proc-job", Dir: dir, Deliver: s.deliver, Lost: s.lose, Logger: logtest.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ep.Close() })
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode, childDir+"="+dir)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go cmd.Wait()
	t.Cleanup(func() { cmd.Process.Kill() })
	return ep, s, cmd
}

// TestSecondProcess exchanges frames with a real second process, small
// and chunked, and sees it lost once it exits.
func TestSecondProcess(t *testing.T) {
	ep, s, _ := startChild(t, "echo")
	n := count(3000)
	size := func(seq uint64) int { return int(seq*7919) % (64 << 10) }
	if err := sendStream(ep, 1, 3, n, size); err != nil {
		t.Fatal(err)
	}
	checkStreams(t, s.wait(t, n, 30*time.Second), size)
	if err := ep.Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: stopTag}, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-s.lost:
		if !errors.Is(err, ErrPeerLost) {
			t.Errorf("Lost with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("exited child not reported lost")
	}
}

// TestKilledMidStream kills the second process while it streams chunked
// frames: the test process must report it lost within a second and fail
// later Sends, never hang.
func TestKilledMidStream(t *testing.T) {
	ep, s, cmd := startChild(t, "stream")
	s.wait(t, 20, 10*time.Second)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	select {
	case err := <-s.lost:
		if !errors.Is(err, ErrPeerLost) {
			t.Errorf("Lost with %v", err)
		}
		t.Logf("killed peer lost after %v: %v", time.Since(start), err)
	case <-time.After(time.Second):
		t.Fatal("killed peer not reported lost within a second")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var err error
	for err == nil { // fills the ring the dead peer no longer drains
		err = ep.Send(ctx, 1, frame.Header{Kind: frame.Eager}, make([]byte, 1000))
	}
	if !errors.Is(err, ErrPeerLost) {
		t.Errorf("Send to the killed peer = %v, want ErrPeerLost", err)
	}
}

// TestQueueToKilledPeer: frames queued for a process that was killed end
// in ErrPeerLost once their bundles find its ring full, never a hang.
func TestQueueToKilledPeer(t *testing.T) {
	ep, s, cmd := startChild(t, "echo")
	if err := ep.Queue(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: 1}, []byte("before")); err != nil {
		t.Fatal(err)
	}
	s.wait(t, 1, 10*time.Second) // echoed: the child is up and drains its ring
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	var err error
	for err == nil && time.Now().Before(deadline) {
		err = ep.Queue(context.Background(), 1, frame.Header{Kind: frame.Eager}, make([]byte, 100))
	}
	if !errors.Is(err, ErrPeerLost) {
		t.Errorf("Queue to the killed peer = %v, want ErrPeerLost", err)
	}
}
