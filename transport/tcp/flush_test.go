package tcp

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

func TestSentFrames(t *testing.T) {
	mk := func() []*frameBuf {
		return []*frameBuf{{b: []byte("aaaa")}, {b: []byte("bb")}, {b: []byte("cccccc")}}
	}
	for _, tc := range []struct {
		n    int
		done int
		rest string // what is left of frame done, if any
	}{
		{0, 0, "aaaa"}, {3, 0, "a"}, {4, 1, "bb"}, {5, 1, "b"}, {6, 2, "cccccc"}, {11, 2, "c"}, {12, 3, ""},
	} {
		fs := mk()
		done := sentFrames(fs, tc.n)
		if done != tc.done {
			t.Errorf("n=%d: %d frames done, want %d", tc.n, done, tc.done)
			continue
		}
		if done < len(fs) && string(fs[done].b) != tc.rest {
			t.Errorf("n=%d: rest %q, want %q", tc.n, fs[done].b, tc.rest)
		}
	}
}

func TestPushFrontAll(t *testing.T) {
	q := newSendQueue(1 << 10)
	for _, s := range []string{"c", "d"} {
		if err := q.push(context.Background(), &frameBuf{b: []byte(s)}); err != nil {
			t.Fatal(err)
		}
	}
	front := []*frameBuf{{b: []byte("a")}, {b: []byte("b")}}
	q.pushFrontAll(front)
	clear(front) // the caller may reuse its slice
	frames, _ := q.take(nil)
	var got string
	for _, f := range frames {
		got += string(f.b)
	}
	if got != "abcd" || q.bytes != 0 {
		t.Errorf("took %q, bytes left %d; want abcd, 0", got, q.bytes)
	}
	if q.pending() {
		t.Errorf("pending after take")
	}
}

// TestPollFlushesUnderBackpressure: a sender that also polls writes its
// queue itself, partly when the socket is full; with a slow receiver,
// every frame still arrives exactly once and in order.
func TestPollFlushesUnderBackpressure(t *testing.T) {
	eachSock(t, testPollFlushesUnderBackpressure)
}

func testPollFlushesUnderBackpressure(t *testing.T, detach bool) {
	check := newSeqCheck()
	check.payload = func(seq uint64) []byte { return patterned(seq, 40<<10) } // 24 MB in all: more than the socket buffers
	var n int
	eps, _ := job(t, 2, func(c *Config) {
		if c.Rank == 1 {
			c.Deliver = func(peer int, h frame.Header, p []byte) {
				if n++; n%10 == 0 {
					time.Sleep(time.Millisecond) // let the socket fill
				}
				check.deliver(peer, h, p)
			}
		}
	})
	setDetach(eps, detach)
	senders, frames := 2, 300
	stop := make(chan struct{})
	var pollers sync.WaitGroup
	pollers.Go(func() { pollBursts(eps[0], 0, stop) })
	sendFromGoroutines(t, senders, frames, func(g int, i uint64) error {
		return eps[0].Queue(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: int32(g), Seq: i}, check.payload(i))
	})
	check.wait(t, int64(senders*frames))
	close(stop)
	pollers.Wait()
}

// TestPushFrontAllEmpty: frames put back into an empty queue do not share
// the caller's array.
func TestPushFrontAllEmpty(t *testing.T) {
	q := newSendQueue(1 << 10)
	front := []*frameBuf{{b: []byte("a")}}
	q.pushFrontAll(front)
	clear(front)
	if frames, _ := q.take(nil); len(frames) != 1 || frames[0] == nil || string(frames[0].b) != "a" {
		t.Errorf("took %v, want the frame a", frames)
	}
}
