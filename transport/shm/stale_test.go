//go:build linux

package shm

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/logtest"
	"github.com/plexus-hpc/plexus/transport/frame"
	"golang.org/x/sys/unix"
)

// lateFrames are what the "sendexit" child sends rank 0 before it exits:
// one frame through a ring slot, one through the bulk buffer.
var lateFrames = [][]byte{[]byte("sent before you joined"), bytes.Repeat([]byte("bulk "), 1000)}

// sendAndExit is the "sendexit" child: rank 1 sends lateFrames to rank 0,
// which has not joined, closes and exits.
func sendAndExit(ep *Endpoint) int {
	for i, p := range lateFrames {
		if err := ep.Send(context.Background(), 0, frame.Header{Kind: frame.Eager, Tag: int32(i)}, p); err != nil {
			return 1
		}
	}
	return 0
}

// TestLateJoinerAfterCleanStale: rank 1 joins, sends, closes and exits
// before rank 0 joins; CleanStale (which every comm Join runs) must leave
// the segment, and rank 0 must receive what was sent and then see rank 1
// lost. Before CleanStale's rule counted unjoined ranks, it removed the
// segment (its one registered pid was dead), the frames were lost and
// rank 0 waited for ever.
func TestLateJoinerAfterCleanStale(t *testing.T) {
	dir := shmDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"=sendexit", childDir+"="+dir)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil { // reaped: its pid is dead
		t.Fatalf("child: %v", err)
	}
	if removed, err := CleanStale(dir); err != nil || len(removed) > 0 {
		t.Fatalf("CleanStale removed %v (%v), want nothing: rank 0 has not joined", removed, err)
	}
	s := newSink()
	ep, err := Open(Config{Rank: 0, Size: 2, JobID: "proc-job", Dir: dir, Deliver: s.deliver, Lost: s.lose, Logger: logtest.New(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer ep.Close()
	got := s.wait(t, len(lateFrames), 5*time.Second)
	for i, f := range got {
		if !bytes.Equal(f.payload, lateFrames[i]) {
			t.Errorf("frame %d: %d bytes %.20q, want %.20q", i, len(f.payload), f.payload, lateFrames[i])
		}
	}
	select {
	case err := <-s.lost:
		if !errors.Is(err, ErrPeerLost) {
			t.Errorf("Lost with %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("rank 1, closed, not reported lost")
	}
}

// TestCleanStaleKeepsJoinableSegments: a segment some rank has not joined
// yet is kept while it is younger than staleAge, even if every rank that
// joined is dead (another job of the user, slow to start, whose first rank
// already finished); once older, it is removed.
func TestCleanStaleKeepsJoinableSegments(t *testing.T) {
	dir := shmDir(t)
	var paths []string
	for _, job := range []string{"one-dead", "none-joined"} {
		ep, err := Open(testConfig(dir, job, 0, 3))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, ep.Path())
		ep.Close() // ranks 1 and 2 never joined: the file stays
	}
	setPID(t, paths[0], 0, deadPID(t))
	setPID(t, paths[1], 0, 0)
	if removed, _ := CleanStale(dir); len(removed) > 0 {
		t.Fatalf("CleanStale removed %v, want nothing: ranks may still join", removed)
	}
	old := time.Now().Add(-staleAge - time.Second)
	for _, p := range paths {
		if err := os.Chtimes(p, old, old); err != nil {
			t.Fatal(err)
		}
	}
	removed, _ := CleanStale(dir)
	slices.Sort(removed)
	if want := slices.Sorted(slices.Values(paths)); !slices.Equal(removed, want) {
		t.Errorf("CleanStale removed %v, want %v once older than staleAge", removed, want)
	}
}

// TestCleanStaleBells: CleanStale removes a doorbell whose segment is
// gone, and leaves one whose segment is there and a file of the same
// name that is not a FIFO.
func TestCleanStaleBells(t *testing.T) {
	dir := shmDir(t)
	eps, _ := openN(t, dir, 2, nil)
	live := bellPath(eps[0].Path(), 0)
	orphan := bellPath(SegmentPath(dir, "gone-job"), 1)
	notFIFO := bellPath(SegmentPath(dir, "other-job"), 0)
	if err := unix.Mkfifo(orphan, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(notFIFO, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	removed, err := CleanStale(dir)
	if err != nil || !slices.Equal(removed, []string{orphan}) {
		t.Errorf("CleanStale removed %v (%v), want only %s", removed, err, orphan)
	}
	for _, keep := range []string{live, notFIFO} {
		if _, err := os.Lstat(keep); err != nil {
			t.Errorf("%s: %v, want it kept", keep, err)
		}
	}
}
