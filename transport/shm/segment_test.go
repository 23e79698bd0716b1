//go:build linux

package shm

import (
	"encoding/binary"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

func testConfig(dir, job string, rank, size int) Config {
	return Config{Rank: rank, Size: size, JobID: job, Dir: dir, AttachTimeout: 50 * time.Millisecond,
		Deliver: func(int, frame.Header, []byte) {}}
}

// TestRefusesBadSegments: garbage, another job's segment, and a segment of
// another geometry are refused with ErrBadSegment, never mapped blindly.
func TestRefusesBadSegments(t *testing.T) {
	dir := shmDir(t)
	garbage := SegmentPath(dir, "garbage")
	os.WriteFile(garbage, []byte(strings.Repeat("not a segment ", 1000)), 0o600)
	zeros := SegmentPath(dir, "zeros")
	os.WriteFile(zeros, make([]byte, 100), 0o600)

	a, err := Open(testConfig(dir, "job-a", 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	foreign := SegmentPath(dir, "job-b")
	if err := os.Link(a.Path(), foreign); err != nil {
		t.Fatal(err)
	}
	for name, cfg := range map[string]Config{
		"garbage": testConfig(dir, "garbage", 0, 2), "zeros": testConfig(dir, "zeros", 0, 2),
		"foreign": testConfig(dir, "job-b", 1, 2), "other size": testConfig(dir, "job-a", 1, 3),
	} {
		_, err := Open(cfg)
		if !errors.Is(err, ErrBadSegment) {
			t.Errorf("Open(%s) = %v, want ErrBadSegment", name, err)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
	if _, err := Open(testConfig(dir, "job-a", 0, 2)); err == nil || !strings.Contains(err.Error(), "already joined") {
		t.Errorf("second rank 0 = %v, want already joined", err)
	}
}

// TestCleanStale removes a segment whose ranks all joined and whose
// processes are all dead, and keeps live ones and foreign files.
func TestCleanStale(t *testing.T) {
	dir := shmDir(t)
	live, err := Open(testConfig(dir, "live", 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	defer live.Close()
	dead, err := Open(testConfig(dir, "dead", 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	path := dead.Path()
	dead.Close() // rank 1 never joined: the file stays
	setPID(t, path, 0, deadPID(t))
	setPID(t, path, 1, deadPID(t))
	other := filepath.Join(dir, "plexus-other-"+strings.TrimPrefix(filepath.Ext(path), "."))
	os.WriteFile(other, []byte("unrelated"), 0o600)

	removed, err := CleanStale(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(removed, []string{path}) {
		t.Errorf("CleanStale removed %v, want [%s]", removed, path)
	}
	for _, keep := range []string{live.Path(), other} {
		if _, err := os.Stat(keep); err != nil {
			t.Errorf("%s removed: %v", keep, err)
		}
	}
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	return cmd.Process.Pid
}

func setPID(t *testing.T, path string, rank, pid int) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	b := binary.LittleEndian.AppendUint64(nil, uint64(pid))
	if _, err := f.WriteAt(b, int64(rankLines+rank*line+pidOff)); err != nil {
		t.Fatal(err)
	}
}
