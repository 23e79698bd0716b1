package guard

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

// lines is a slog handler that keeps each record as "LEVEL msg k=v ...".
type lines struct {
	mu sync.Mutex
	l  []string
}

func (l *lines) Enabled(context.Context, slog.Level) bool { return true }
func (l *lines) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l *lines) WithGroup(string) slog.Handler            { return l }

func (l *lines) Handle(_ context.Context, r slog.Record) error {
	s := r.Level.String() + " " + r.Message
	r.Attrs(func(a slog.Attr) bool {
		s += " " + a.String()
		return true
	})
	l.mu.Lock()
	defer l.mu.Unlock()
	l.l = append(l.l, s)
	return nil
}

func (l *lines) get() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.l...)
}

func TestTallyBurstAndSummary(t *testing.T) {
	var out lines
	tl := NewTally(slog.New(&out), 3, 50*time.Millisecond, "refused")
	for i := range 1000 {
		level := slog.LevelWarn
		if i == 500 {
			level = slog.LevelError
		}
		tl.Log(level, "refused", "n", i)
	}
	if got := out.get(); len(got) != 3 || got[2] != "WARN refused n=2" {
		t.Fatalf("lines at once %q, want the first 3", got)
	}
	time.Sleep(150 * time.Millisecond)
	got := out.get()
	if len(got) != 4 || !strings.HasPrefix(got[3], "ERROR refused suppressed=997 period=") {
		t.Fatalf("lines after the period %q, want a summary of 997 at the highest level", got)
	}
	tl.Log(slog.LevelInfo, "late")
	tl.Stop()
	if got := out.get(); len(got) != 5 || got[4] != "INFO late" {
		t.Errorf("after a quiet period %q, want the line written", got)
	}
}

func TestTallyStopFlushes(t *testing.T) {
	var out lines
	tl := NewTally(slog.New(&out), 1, time.Hour, "refused")
	tl.Log(slog.LevelWarn, "a")
	tl.Log(slog.LevelWarn, "b")
	tl.Log(slog.LevelWarn, "c")
	tl.Stop()
	tl.Log(slog.LevelWarn, "d")
	got := out.get()
	if len(got) != 2 || !strings.HasPrefix(got[1], "WARN refused suppressed=2") {
		t.Errorf("%q, want a and a summary of 2", got)
	}
}
