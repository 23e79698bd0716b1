package jobtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// Binaries builds Pkgs (go build arguments, relative to the test's
// package directory) into one temporary directory, once per test binary;
// Remove deletes it, from TestMain after m.Run.
//
// Dir and Remove may be called from any goroutine.
type Binaries struct {
	Pkgs []string

	once sync.Once
	dir  string
	err  error
}

// Dir builds the binaries on its first call and returns their directory;
// a failed build fails t, on every call.
func (b *Binaries) Dir(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		b.dir, b.err = os.MkdirTemp("", "plexus-jobtest-")
		if b.err != nil {
			return
		}
		args := append([]string{"build", "-o", b.dir + string(filepath.Separator)}, b.Pkgs...)
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.dir
}

// Remove deletes the binaries' directory, if Dir made one.
func (b *Binaries) Remove() {
	if b.dir != "" {
		os.RemoveAll(b.dir)
	}
}

// RunPlexus runs prog, one of b's binaries, with args under b's plexus
// run (b builds ../cmd/plexus too) with n ranks and a 50-second job
// timeout, env added to this process's environment, and returns the
// ranks' output with the "[rank] " prefixes removed. It skips under
// -short, before building anything; a failed job fails t.
func (b *Binaries) RunPlexus(t testing.TB, n int, env []string, prog string, args ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and runs a job of several processes")
	}
	dir := b.Dir(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	argv := append([]string{"run", "-n", fmt.Sprint(n), "--timeout", "50s", "--", filepath.Join(dir, prog)}, args...)
	cmd := exec.CommandContext(ctx, filepath.Join(dir, "plexus"), argv...)
	if env != nil {
		cmd.Env = append(os.Environ(), env...)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("plexus %s: %v\n%s", strings.Join(argv, " "), err, out)
	}
	return rankPrefix.ReplaceAllString(string(out), "")
}

var rankPrefix = regexp.MustCompile(`(?m)^\[\d+\] `)

// MustContain fails t, going on, if out lacks want.
func MustContain(t testing.TB, out, want string) {
	t.Helper()
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
}
