package multirail

import (
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// railsWith is a Link's strategy state alone, no connections: rails
// whose pending chunks have the given lengths, the first one's on the
// wire since onWire.
func railsWith(t *testing.T, now time.Time, chunks [][]int, onWire []time.Time) *Link {
	t.Helper()
	p, err := rail.NewProfile("test", []rail.Sample{{Size: 4, Time: 20 * time.Microsecond}, {Size: 8 << 20, Time: 64 * time.Millisecond}})
	if err != nil {
		t.Fatal(err)
	}
	l := &Link{cfg: Config{Ahead: 4 << 20, Slice: 2 << 20, Now: func() time.Time { return now }}, snap: make([]rail.Rail, len(chunks))}
	for i, lens := range chunks {
		rc := &railConn{i: i, profile: p, slowdown: 1}
		for _, n := range lens {
			rc.pend.push(&pendChunk{h: header{len: uint32(n)}})
			rc.unacked += n
		}
		if onWire != nil {
			rc.onWire = onWire[i]
		}
		l.rails = append(l.rails, rc)
	}
	return l
}

// TestRoomAhead: the next slice is posted while the rails hold less than
// Ahead unacknowledged, and, up to a slice more, while some rail up has
// at most the one chunk on its wire, so that one rail holding the budget
// does not leave another idle.
func TestRoomAhead(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name   string
		chunks [][]int
		down   int // a rail down, or -1
		want   bool
	}{
		{"idle rails", [][]int{nil, nil}, -1, true},
		{"under Ahead", [][]int{{mib, mib}, {mib}}, -1, true},
		{"at Ahead, both rails two deep", [][]int{{mib, mib}, {mib, mib}}, -1, false},
		{"at Ahead on one rail, the other idle", [][]int{{2 * mib, 2 * mib}, nil}, -1, true},
		{"at Ahead, the other rail on its last chunk", [][]int{{2 * mib, mib}, {mib}}, -1, true},
		{"a slice over Ahead, the other idle", [][]int{{2 * mib, 2 * mib, 2 * mib}, nil}, -1, false},
		{"at Ahead, the idle rail down", [][]int{{2 * mib, 2 * mib}, nil}, 1, false},
	} {
		l := railsWith(t, time.Time{}, c.chunks, nil)
		if c.down >= 0 {
			l.rails[c.down].down = true
		}
		if got := l.roomAhead(); got != c.want {
			t.Errorf("%s: roomAhead %v, want %v", c.name, got, c.want)
		}
	}
}

// TestBusyLessWhatLeft: a rail's busy time is the predicted time of what
// it has unacknowledged, less the time its oldest chunk has been on the
// wire, at most that chunk's own predicted time; where that time is not
// known, all of it.
func TestBusyLessWhatLeft(t *testing.T) {
	const mib = 1 << 20
	t0 := time.Unix(1000, 0)
	for _, c := range []struct {
		name  string
		since time.Duration // on the wire for; negative: unknown
		less  func(r rail.Rail) time.Duration
	}{
		{"just begun", 0, func(rail.Rail) time.Duration { return 0 }},
		{"3 ms on the wire", 3 * time.Millisecond, func(rail.Rail) time.Duration { return 3 * time.Millisecond }},
		{"late", time.Second, func(r rail.Rail) time.Duration { return r.Predict(mib) }},
		{"unknown", -1, func(rail.Rail) time.Duration { return 0 }},
	} {
		onWire := t0.Add(-c.since)
		if c.since < 0 {
			onWire = time.Time{}
		}
		l := railsWith(t, t0, [][]int{{mib, 2 * mib}, nil}, []time.Time{onWire, {}})
		rs := l.snapshot()
		want := rs[0].Predict(3*mib) - c.less(rs[0])
		if rs[0].Busy != want {
			t.Errorf("%s: busy %v, want %v", c.name, rs[0].Busy, want)
		}
		if rs[1].Busy != 0 {
			t.Errorf("%s: idle rail busy %v", c.name, rs[1].Busy)
		}
	}
}
