package guard

import (
	"context"
	"log/slog"
	"sync"
	"time"
)

// Tally rate-limits one kind of log record, such as refused connections:
// at most burst records are written per period; the records beyond are
// counted, and the count is written as one summary record (message what,
// attributes suppressed=N and period) when that period ends, at the
// highest level among those it counts. A flood of strangers thus writes
// at most burst+1 records a period, and still leaves a record of its size.
//
// Its methods are safe for concurrent use. Records are written under the
// tally's lock, so the logger's handler must not call back into it.
type Tally struct {
	log    *slog.Logger
	burst  int
	period time.Duration
	what   string

	mu      sync.Mutex
	start   time.Time  // of the current period
	written int        // lines written in it
	dropped int        // lines counted since the last summary
	level   slog.Level // the highest level among them
	timer   *time.Timer
	stopped bool
}

// NewTally returns a tally that writes to log at most burst records per
// period, and summarises the rest in a record whose message is what; a
// nil log means slog.Default().
func NewTally(log *slog.Logger, burst int, period time.Duration, what string) *Tally {
	if burst < 1 || period <= 0 {
		panic("guard: NewTally needs a positive burst and period")
	}
	if log == nil {
		log = slog.Default()
	}
	return &Tally{log: log, burst: burst, period: period, what: what}
}

// Log writes the record (as slog.Logger.Log) if the period has room for
// it, and counts it otherwise. After Stop it does nothing. A record the
// logger would discard at level still takes its place in the period.
func (t *Tally) Log(level slog.Level, msg string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	now := time.Now()
	if now.Sub(t.start) >= t.period {
		t.start, t.written = now, 0
	}
	if t.written < t.burst && t.dropped == 0 {
		t.written++
		t.log.Log(context.Background(), level, msg, args...)
		return
	}
	if t.dropped == 0 || level > t.level {
		t.level = level
	}
	t.dropped++
	if t.timer == nil {
		t.timer = time.AfterFunc(t.start.Add(t.period).Sub(now), t.summary)
	}
}

// summary writes the count of the lines held back, at the end of the
// period they fell in.
func (t *Tally) summary() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.timer = nil
	if t.stopped {
		return
	}
	t.flush()
	t.start, t.written = time.Now(), 1 // the summary is this period's first line
}

// flush writes the summary line, if any lines were held back. t.mu must
// be held.
func (t *Tally) flush() {
	if t.dropped > 0 {
		t.log.Log(context.Background(), t.level, t.what, "suppressed", t.dropped, "period", t.period)
		t.dropped = 0
	}
}

// Stop writes the pending summary, if any, and ends the tally: later
// lines are dropped uncounted and no summary is written after Stop
// returns, so a caller may close its log then.
func (t *Tally) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return
	}
	t.stopped = true
	if t.timer != nil {
		t.timer.Stop()
	}
	t.flush()
}
