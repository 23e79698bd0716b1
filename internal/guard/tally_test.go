package guard

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) printf(format string, args ...any) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, fmt.Sprintf(format, args...))
}

func (l *lines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.l...)
}

func TestTallyBurstAndSummary(t *testing.T) {
	var out lines
	tl := NewTally(out.printf, 3, 50*time.Millisecond, "refused")
	for i := range 1000 {
		tl.Printf("refused %d", i)
	}
	if got := out.get(); len(got) != 3 || got[2] != "refused 2" {
		t.Fatalf("lines at once %q, want the first 3", got)
	}
	time.Sleep(150 * time.Millisecond)
	got := out.get()
	if len(got) != 4 || !strings.HasPrefix(got[3], "refused: 997 more") {
		t.Fatalf("lines after the period %q, want a summary of 997", got)
	}
	tl.Printf("late")
	tl.Stop()
	if got := out.get(); len(got) != 5 || got[4] != "late" {
		t.Errorf("after a quiet period %q, want the line written", got)
	}
}

func TestTallyStopFlushes(t *testing.T) {
	var out lines
	tl := NewTally(out.printf, 1, time.Hour, "refused")
	tl.Printf("a")
	tl.Printf("b")
	tl.Printf("c")
	tl.Stop()
	tl.Printf("d")
	got := out.get()
	if len(got) != 2 || !strings.HasPrefix(got[1], "refused: 2 more") {
		t.Errorf("%q, want a and a summary of 2", got)
	}
}
