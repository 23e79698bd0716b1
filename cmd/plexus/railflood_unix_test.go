//go:build unix

package main

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestRailFloodBadFD: --fd naming no descriptor, or one that is not a
// socket, fails at once with the reason; -h prints the usage.
func TestRailFloodBadFD(t *testing.T) {
	// A descriptor of a regular file for the command to refuse and close
	// (a duplicate: the command owns and closes what --fd names).
	fd, err := syscall.Open("railflood_test.go", syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	file := strconv.Itoa(fd)
	for _, tc := range []struct{ fd, want string }{
		{"9999", "--fd 9999: stat flow: bad file descriptor"},
		{file, "--fd " + file + " is not a socket"},
	} {
		_, errOut, code := plexus(t, "rail", "flood", "--fd", tc.fd)
		if code != exitFailure || !strings.Contains(errOut, tc.want) {
			t.Errorf("rail flood --fd %s: exit %d, stderr %q; want 1 and %q", tc.fd, code, errOut, tc.want)
		}
	}
	if out, _, code := plexus(t, "rail", "flood", "-h"); code != exitOK || !strings.Contains(out, "usage: plexus rail flood") {
		t.Errorf("rail flood -h: exit %d, stdout %q", code, out)
	}
}
