//go:build linux

package shm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// truncateEnv names how runTruncate's child meets the truncation.
const truncateEnv = "PLEXUS_SHM_TRUNCATE"

// TestTruncatedSegment truncates a live segment under two endpoints, in a
// child process so that a SIGBUS kills only the child: the endpoints must
// fail — every peer lost with ErrBadSegment — and later operations return
// errors. "shield": a shielded goroutine touches a lost page before any
// other goroutine does (passive endpoints, no monitor tick yet);
// "active": the receive goroutines, which wake every Heartbeat, or the
// monitor meet it, whichever comes first; "passive": no receive
// goroutine, the monitor finds the file shorter (truncated past the rank
// lines). Before fault.go, each child died of SIGBUS ("unexpected fault
// address").
func TestTruncatedSegment(t *testing.T) {
	for _, how := range []string{"shield", "active", "passive"} {
		t.Run(how, func(t *testing.T) {
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), childEnv+"=truncate", truncateEnv+"="+how, childDir+"="+shmDir(t))
			out, err := cmd.CombinedOutput()
			if err != nil || !strings.Contains(string(out), "truncate: ok") {
				t.Fatalf("child: %v\n%s", err, out)
			}
			t.Logf("%s", out)
		})
	}
}

// runTruncate is the child of TestTruncatedSegment.
func runTruncate(how, dir string) int {
	if err := truncateOnce(how, dir); err != nil {
		fmt.Println("truncate:", err)
		return 1
	}
	fmt.Println("truncate: ok")
	return 0
}

func truncateOnce(how, dir string) error {
	eps, sinks, err := openTwo(dir, how)
	if err != nil {
		return err
	}
	defer eps[0].Close()
	defer eps[1].Close()
	for _, p := range [][]byte{[]byte("small"), make([]byte, 4000)} { // a ring and a bulk buffer in use
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, p); err != nil {
			return err
		}
	}
	for eps[1].Passive() && len(sinks[1].frames) < 2 {
		eps[1].Poll(0)
	}
	size := int64(0)
	if how == "passive" {
		size = int64(eps[0].seg.ringsOff) // header and rank lines stay
	}
	if err := os.Truncate(eps[0].Path(), size); err != nil {
		return err
	}
	if how == "shield" && touchShielded(eps[0]) {
		return fmt.Errorf("a shielded touch of a truncated page returned")
	}
	return checkFailed(eps, sinks)
}

// touchShielded touches a page of ep's segment from a shielded goroutine
// and reports whether the touch returned.
func touchShielded(ep *Endpoint) bool {
	returned := make(chan bool)
	go func() {
		shield()
		returned <- ep.shielded(func() { atomic.AddUint64(ep.seg.signal(0, 1, 0), 1) })
	}()
	return <-returned
}

// openTwo opens the two endpoints of runTruncate's job.
func openTwo(dir, how string) ([]*Endpoint, []*sink, error) {
	eps, sinks := make([]*Endpoint, 2), []*sink{newSink(), newSink()}
	for r := range eps {
		cfg := Config{Rank: r, Size: 2, JobID: "truncate", Dir: dir, Deliver: sinks[r].deliver, Lost: sinks[r].lose,
			Logger: slog.New(slog.NewTextHandler(os.Stdout, nil)), Passive: how != "active"}
		if how == "shield" { // no monitor tick before the shielded touch
			cfg.Heartbeat, cfg.PeerTimeout = time.Second, 2*time.Second
		}
		ep, err := Open(cfg)
		if err != nil {
			return nil, nil, err
		}
		eps[r] = ep
	}
	return eps, sinks, nil
}

// checkFailed waits until both endpoints lost their peer for a fault in
// the segment, and sees Send fail. A passive endpoint is polled only once
// it failed: the test's own goroutine is not shielded.
func checkFailed(eps []*Endpoint, sinks []*sink) error {
	deadline := time.Now().Add(10 * time.Second)
	for r, ep := range eps {
		for !ep.failed.Load() {
			if time.Now().After(deadline) {
				return fmt.Errorf("rank %d: not failed after 10 s", r)
			}
			time.Sleep(time.Millisecond)
		}
		ep.Poll(1 - r) // a passive endpoint reports its losses here
		select {
		case err := <-sinks[r].lost:
			if !errors.Is(err, ErrPeerLost) || !errors.Is(err, ErrBadSegment) {
				return fmt.Errorf("rank %d: Lost with %v, want ErrPeerLost and ErrBadSegment", r, err)
			}
		case <-time.After(5 * time.Second):
			buf := make([]byte, 1<<20)
			os.Stdout.Write(buf[:runtime.Stack(buf, true)])
			return fmt.Errorf("rank %d: peer not lost", r)
		}
		err := ep.Send(context.Background(), 1-r, frame.Header{Kind: frame.Eager}, make([]byte, 1000))
		if !errors.Is(err, ErrPeerLost) {
			return fmt.Errorf("rank %d: Send after the truncation = %v, want ErrPeerLost", r, err)
		}
	}
	return nil
}
