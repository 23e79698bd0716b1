//go:build linux

package shm

import (
	"errors"
	"os"
	"strings"
	"syscall"
	"testing"
)

// TestRefusesSegmentsNotPrivate: a segment file with a valid header is
// still refused, with ErrBadSegment naming the owner and mode, when
// another user owns it, when others may read or write it, or when the
// name is a symbolic link to it; CleanStale leaves such files alone.
// Before openPrivate, each was attached: a squatter read the job's
// frames and could truncate the segment under its ranks.
func TestRefusesSegmentsNotPrivate(t *testing.T) {
	dir := shmDir(t)
	mk := func(job string) string {
		ep, err := Open(testConfig(dir, job, 0, 2))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ep.Close() })
		return ep.Path()
	}
	if err := os.Chmod(mk("shared"), 0o666); err != nil {
		t.Fatal(err)
	}
	other := shmDir(t)
	target := mk("linked")
	link := SegmentPath(other, "linked")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	cases := map[string]struct {
		cfg  Config
		want string
	}{
		"mode 0666": {testConfig(dir, "shared", 1, 2), "mode is not 0600"},
		"symlink":   {testConfig(other, "linked", 1, 2), "symbolic link"},
	}
	if os.Geteuid() == 0 {
		if err := os.Chown(mk("squatted"), 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases["owner nobody"] = struct {
			cfg  Config
			want string
		}{testConfig(dir, "squatted", 1, 2), "owned by another user"}
	} else {
		t.Log("not root: cannot give a file to another user; the owner check is not tested")
	}
	for name, c := range cases {
		_, err := Open(c.cfg)
		if !errors.Is(err, ErrBadSegment) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Open = %v, want ErrBadSegment saying %q", name, err, c.want)
			continue
		}
		t.Logf("%s: %v", name, err)
	}
}

// TestCleanStaleLeavesOthersFiles: a stale-looking segment that another
// user owns, or a symbolic link to one, is not this user's to remove.
func TestCleanStaleLeavesOthersFiles(t *testing.T) {
	dir := shmDir(t)
	ep, err := Open(testConfig(dir, "gone", 0, 2))
	if err != nil {
		t.Fatal(err)
	}
	target := ep.Path()
	ep.Close() // rank 1 never joined: the file stays
	setPID(t, target, 0, deadPID(t))
	setPID(t, target, 1, deadPID(t))
	link := SegmentPath(dir, "link")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(target, 0o644); err != nil {
		t.Fatal(err)
	}
	if removed, _ := CleanStale(dir); len(removed) > 0 {
		t.Errorf("CleanStale removed %v, files not private to this user", removed)
	}
	for _, p := range []string{target, link} {
		if _, err := os.Lstat(p); err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	os.Chmod(target, 0o600)
	if removed, _ := CleanStale(dir); len(removed) != 1 || removed[0] != target {
		t.Errorf("CleanStale removed %v, want only %s once it is private again", removed, target)
	}
}

// TestCreatorIgnoresUmask: a creator with a strict umask still leaves the
// file at 0600, which the ranks that attach demand.
func TestCreatorIgnoresUmask(t *testing.T) {
	dir := shmDir(t)
	old := syscall.Umask(0o277)
	a, err := Open(testConfig(dir, "umask", 0, 2))
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := Open(testConfig(dir, "umask", 1, 2))
	if err != nil {
		t.Fatalf("attach to a segment created under umask 0277: %v", err)
	}
	b.Close()
}
