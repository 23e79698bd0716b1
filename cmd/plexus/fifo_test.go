//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// TestMachineRefusesFIFO: a named pipe given as an hwloc file, or found in
// a Smelt machine directory, fails the command with an error naming it
// instead of waiting for a writer.
func TestMachineRefusesFIFO(t *testing.T) {
	dir := t.TempDir()
	xml := filepath.Join(dir, "x.xml")
	smelt := filepath.Join(dir, "machine")
	if err := os.CopyFS(smelt, os.DirFS(model2x10)); err != nil {
		t.Fatal(err)
	}
	pairs := filepath.Join(smelt, "pairwise-nsend_send")
	if err := os.Remove(pairs); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{xml, pairs} {
		if err := unix.Mkfifo(p, 0o600); err != nil {
			t.Skipf("mkfifo: %v", err)
		}
	}
	for _, args := range [][]string{{"machine", "--hwloc", xml}, {"machine", "--model", smelt}} {
		_, errOut, code := plexus(t, args...)
		if code != exitFailure || !strings.Contains(errOut, "is a named pipe") {
			t.Errorf("plexus %s: exit %d, stderr %q; want 1 and the pipe named", strings.Join(args, " "), code, errOut)
		}
	}
}
