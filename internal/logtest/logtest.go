// Package logtest provides loggers for tests: one that writes through
// testing.TB.Log, and a Sink that keeps the records for a test to check.
package logtest

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
)

// New returns a logger that writes every record, Debug included, as a
// text line through t.Log.
func New(t testing.TB) *slog.Logger {
	return slog.New(slog.NewTextHandler(tWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

type tWriter struct{ t testing.TB }

func (w tWriter) Write(p []byte) (int, error) {
	w.t.Log(string(bytes.TrimSuffix(p, []byte("\n"))))
	return len(p), nil
}

// Sink is a slog.Handler that keeps every record, Debug included, as a
// line "LEVEL message key=value ...". Its zero value is ready to use, and
// its methods are safe for concurrent use.
type Sink struct {
	mu    sync.Mutex
	lines []string
	attrs []slog.Attr // of a handler made by WithAttrs; shares mu via root
	root  *Sink
}

// Logger returns a logger that writes to s.
func (s *Sink) Logger() *slog.Logger { return slog.New(s) }

// Enabled reports true: s keeps every level.
func (s *Sink) Enabled(context.Context, slog.Level) bool { return true }

// WithAttrs returns a handler that adds attrs to each record it keeps in s.
func (s *Sink) WithAttrs(attrs []slog.Attr) slog.Handler {
	return &Sink{attrs: append(append([]slog.Attr(nil), s.attrs...), attrs...), root: s.top()}
}

// WithGroup returns s: groups are not kept.
func (s *Sink) WithGroup(string) slog.Handler { return s }

// Handle keeps r.
func (s *Sink) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Level.String() + " " + r.Message)
	for _, a := range s.attrs {
		b.WriteString(" " + a.String())
	}
	r.Attrs(func(a slog.Attr) bool {
		b.WriteString(" " + a.String())
		return true
	})
	top := s.top()
	top.mu.Lock()
	defer top.mu.Unlock()
	top.lines = append(top.lines, b.String())
	return nil
}

func (s *Sink) top() *Sink {
	if s.root != nil {
		return s.root
	}
	return s
}

// Lines returns the records kept so far at level or above.
func (s *Sink) Lines(level slog.Level) []string {
	top := s.top()
	top.mu.Lock()
	defer top.mu.Unlock()
	var out []string
	for _, l := range top.lines {
		var lv slog.Level
		name, _, _ := strings.Cut(l, " ")
		if lv.UnmarshalText([]byte(name)) == nil && lv >= level {
			out = append(out, l)
		}
	}
	return out
}

// String returns every record kept so far, one a line.
func (s *Sink) String() string {
	return strings.Join(s.Lines(slog.LevelDebug-100), "\n")
}
