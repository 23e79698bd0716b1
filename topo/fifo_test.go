//go:build unix

package topo

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestOpenFileRefusesFIFO: a named pipe with no writer is refused at once
// (opening it for reading would wait for a writer, maybe forever).
func TestOpenFileRefusesFIFO(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "model.json")
	if err := unix.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan error, 1)
	go func() {
		f, err := OpenFile(fifo, MaxFileBytes)
		if err == nil {
			f.Close()
		}
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), "model.json is a named pipe") {
			t.Fatalf("OpenFile(FIFO): %v, want ErrNotRegular naming the pipe", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("OpenFile(FIFO) still waits after 10 s")
	}
}
