package am

import "time"

// cause is why a buffer was sent.
type cause int

const (
	causeSize  cause = 1 + iota // the buffer reached Config.FlushBytes
	causeAge                    // its oldest message is older than Config.FlushAge
	causeIdle                   // nothing new came to any buffer for a tick, or a handler queue drained
	causeFlush                  // Flush or Close asked for it
)

// buffered is what decide looks at in one destination's buffer.
type buffered struct {
	bytes    int           // bytes waiting
	age      time.Duration // age of the oldest message waiting
	idle     bool          // the sender has stopped producing
	messages int           // messages waiting
	waiting  int           // of them, Calls whose callers now block on the reply
}

// blocked reports whether every message in the buffer is a Call whose
// caller blocks waiting for its reply: Grappa's core with every worker
// blocked. Nothing more will come from those callers until the buffer
// goes, so holding it only adds latency; a buffer with a Post, or a Call
// whose caller is still running, is not blocked.
func (b buffered) blocked() bool { return b.messages > 0 && b.waiting >= b.messages }

// thresholds are the limits of Config that make a buffer go.
type thresholds struct {
	bytes int
	age   time.Duration
}

// decide reports whether a buffer should be sent now and why. It is pure:
// the caller measures the age with its own clock. An empty buffer never
// goes; size wins over age, age over idleness, which is either the
// sender's (idle) or that of the buffer's callers (blocked).
func decide(b buffered, th thresholds) (cause, bool) {
	switch {
	case b.bytes <= 0:
		return 0, false
	case b.bytes >= th.bytes:
		return causeSize, true
	case b.age >= th.age:
		return causeAge, true
	case b.idle || b.blocked():
		return causeIdle, true
	}
	return 0, false
}
