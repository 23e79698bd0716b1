package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestKV builds plexus and this example and runs it under plexus run
// with two client ranks: each reads its own key back, and of the two
// swaps of the shared key exactly one replaced nothing.
func TestKV(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a job of several processes")
	}
	dir := t.TempDir()
	if out, err := exec.Command("go", "build", "-o", dir+string(filepath.Separator), "../../cmd/plexus", ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(dir, "plexus"), "run", "-n", "5", "--timeout", "50s", "--",
		filepath.Join(dir, "kv")).CombinedOutput()
	if err != nil {
		t.Fatalf("plexus run: %v\n%s", err, out)
	}
	s := string(out)
	for _, want := range []string{`client 3 read rank-003 = "mine"`, `client 4 read rank-004 = "mine"`} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if n := strings.Count(s, `replaced ""`); n != 1 {
		t.Errorf("%d swaps of the shared key replaced nothing, want exactly 1:\n%s", n, s)
	}
	if !strings.Contains(s, `replaced "from `) {
		t.Errorf("no swap replaced the other client's value:\n%s", s)
	}
}
