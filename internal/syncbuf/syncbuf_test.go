package syncbuf

import (
	"strings"
	"sync"
	"testing"
)

// TestConcurrentWrites: every write of many goroutines arrives whole,
// read while they write (run it with -race).
func TestConcurrentWrites(t *testing.T) {
	var b Buffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 100 {
				b.Write([]byte("line\n"))
				_ = b.String()
			}
		})
	}
	wg.Wait()
	if n := strings.Count(b.String(), "line\n"); n != 800 {
		t.Errorf("%d lines, want 800", n)
	}
}
