package comm

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// flushCounting is a transport that counts the Flush calls it gets.
type flushCounting struct {
	transport
	n *atomic.Int32
}

func (f flushCounting) Flush() { f.n.Add(1) }

// countingOpener opens rank's transport on tw, wrapped in flushCounting.
func countingOpener(tw *twin, rank int, n *atomic.Int32) func(events) (transport, error) {
	return func(ev events) (transport, error) {
		t, err := tw.Opener(rank)(ev)
		return flushCounting{t, n}, err
	}
}

// TestWaitallFlushes: Waitall asks a transport that holds frames back to
// write them before it waits, even when every request is already done
// (Isend's eager requests are), so a window's last frames are not left
// until the next poll.
func TestWaitallFlushes(t *testing.T) {
	tw := newTwin(2)
	var flushes atomic.Int32
	w0, err := openWorld(Config{Rank: 0, Size: 2}, countingOpener(tw, 0, &flushes))
	if err != nil {
		t.Fatal(err)
	}
	defer w0.Close()
	w1, err := openWorld(Config{Rank: 1, Size: 2}, tw.Opener(1))
	if err != nil {
		t.Fatal(err)
	}
	defer w1.Close()
	ctx := testCtx(t)
	r, err := w0.Isend(1, 5, []byte("abc"))
	if err != nil {
		t.Fatal(err)
	}
	if n := flushes.Load(); n != 0 {
		t.Fatalf("%d flushes before Waitall, want 0", n)
	}
	if err := WaitallInto(ctx, nil, r); err != nil {
		t.Fatal(err)
	}
	if n := flushes.Load(); n != 1 {
		t.Errorf("%d flushes after one Waitall, want 1", n)
	}
	buf := make([]byte, 3)
	if _, err := w1.Recv(ctx, 0, 5, buf); err != nil || string(buf) != "abc" {
		t.Errorf("Recv = %q, %v", buf, err)
	}
}

// TestMuxFlush: a mux passes Flush on to the transports under it that
// hold frames back, the local one once it is routed.
func TestMuxFlush(t *testing.T) {
	tw, local := newTwin(2), newTwin(2)
	var nRemote, nLocal atomic.Int32
	m := newMux(muxConfig{Rank: 0, Size: 2, Remote: countingOpener(tw, 0, &nRemote),
		Local: func(rank, size int) opener { return countingOpener(local, rank, &nLocal) }})
	if _, err := m.Open(events{Deliver: func(int, frame.Header, []byte) {}, Lost: func(int, error) {}}); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	m.Flush()
	if r, l := nRemote.Load(), nLocal.Load(); r != 1 || l != 0 {
		t.Errorf("before Route: remote flushed %d times, local %d, want 1 and 0", r, l)
	}
	if err := m.Route([]string{"a", "a"}); err != nil {
		t.Fatal(err)
	}
	m.Flush()
	if r, l := nRemote.Load(), nLocal.Load(); r != 2 || l != 1 {
		t.Errorf("after Route: remote flushed %d times, local %d, want 2 and 1", r, l)
	}
}

// eagerRecording is a transport that records the SendEager and
// QueueEager calls it gets (and drops their frames).
type eagerRecording struct {
	transport
	calls *[]string
}

func (e eagerRecording) SendEager(_ context.Context, peer int, comm uint32, tag int32, p []byte) error {
	*e.calls = append(*e.calls, fmt.Sprintf("send %d/%d/%d/%s", peer, comm, tag, p))
	return nil
}

func (e eagerRecording) QueueEager(_ context.Context, peer int, comm uint32, tag int32, p []byte) error {
	*e.calls = append(*e.calls, fmt.Sprintf("queue %d/%d/%d/%s", peer, comm, tag, p))
	return nil
}

// TestMuxEager: a mux passes SendEager and QueueEager to the local
// transport that takes them, with the peer's local number, and turns them
// into a Send or Queue (here both a Send) of the same eager frame for a
// peer over the remote transport.
func TestMuxEager(t *testing.T) {
	tw, local := newTwin(3), newTwin(2)
	var calls []string
	got := make(chan frame.Header, 1)
	m := newMux(muxConfig{Rank: 0, Size: 3, Remote: tw.Opener(0),
		Local: func(rank, size int) opener {
			return func(ev events) (transport, error) {
				t, err := local.Opener(rank)(ev)
				return eagerRecording{t, &calls}, err
			}
		}})
	if _, err := m.Open(events{Deliver: func(int, frame.Header, []byte) {}, Lost: func(int, error) {}}); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	remote, err := tw.Opener(1)(events{Deliver: func(_ int, h frame.Header, _ []byte) { got <- h }, Lost: func(int, error) {}})
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	if err := m.Route([]string{"a", "b", "a"}); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx(t)
	if err := errors.Join(m.QueueEager(ctx, 2, 3, 9, []byte("hi")), m.SendEager(ctx, 2, 4, 8, []byte("ho"))); err != nil {
		t.Fatal(err)
	}
	if want := []string{"queue 1/3/9/hi", "send 1/4/8/ho"}; fmt.Sprint(calls) != fmt.Sprint(want) {
		t.Errorf("local calls %q, want %q", calls, want)
	}
	for i, f := range []func(context.Context, int, uint32, int32, []byte) error{m.QueueEager, m.SendEager} {
		if err := f(ctx, 1, 3, int32(i), []byte("yo")); err != nil {
			t.Fatal(err)
		}
		select {
		case h := <-got:
			if want := (frame.Header{Kind: frame.Eager, Comm: 3, Source: 0, Tag: int32(i), Aux: 2}); h != want {
				t.Errorf("remote peer got %+v, want %+v", h, want)
			}
		case <-ctx.Done():
			t.Fatal("the remote peer got nothing")
		}
	}
}

// pollCounting is a transport that counts the Poll calls it gets.
type pollCounting struct {
	transport
	n *atomic.Int32
}

func (p pollCounting) Poll(int) bool { p.n.Add(1); return false }
func (p pollCounting) PollDone(int)  {}

// TestMuxPollSkipsIdleRemote: a mux whose ranks are all on this host does
// not poll the remote transport, which carries nothing; one with a rank
// elsewhere does.
func TestMuxPollSkipsIdleRemote(t *testing.T) {
	for _, c := range []struct {
		hosts []string
		want  int32
	}{{[]string{"a", "a"}, 0}, {[]string{"a", "b"}, 1}} {
		tw, local := newTwin(2), newTwin(2)
		var polls atomic.Int32
		m := newMux(muxConfig{Rank: 0, Size: 2,
			Remote: func(ev events) (transport, error) {
				t, err := tw.Opener(0)(ev)
				return pollCounting{t, &polls}, err
			},
			Local: func(rank, size int) opener { return local.Opener(rank) }})
		if _, err := m.Open(events{Deliver: func(int, frame.Header, []byte) {}, Lost: func(int, error) {}}); err != nil {
			t.Fatal(err)
		}
		if err := m.Route(c.hosts); err != nil {
			t.Fatal(err)
		}
		m.Poll(-1)
		if got := polls.Load(); got != c.want {
			t.Errorf("hosts %v: remote polled %d times by Poll(-1), want %d", c.hosts, got, c.want)
		}
		m.Close()
	}
}

// TestWaitallSpinCoversTheWindow: while Waitall waits for the last of its
// requests, its world's spin budget counts the others as large as the
// last (bytesAhead: a window), from minAhead up, and gives the count back
// when the wait ends; a window of small messages leaves it alone.
func TestWaitallSpinCoversTheWindow(t *testing.T) {
	ws := makers["twin"](t, 2, Config{})
	ctx := testCtx(t)
	small := make([]*Request, 64)
	for i := range small {
		small[i] = &Request{buf: make([]byte, 8)}
	}
	if got := bytesAhead(small); got != 0 {
		t.Errorf("bytesAhead of 64 8-byte requests = %d, want 0 (below minAhead)", got)
	}
	sizes := []int{16 << 10, 32 << 10, 48 << 10}
	var reqs []*Request
	for tag, n := range sizes {
		r, err := ws.ws[1].Irecv(0, tag, make([]byte, n))
		if err != nil {
			t.Fatal(err)
		}
		reqs = append(reqs, r)
	}
	const want = 2 * 48 << 10 // two more as large as the last
	if got := bytesAhead(reqs); got != want {
		t.Fatalf("bytesAhead = %d, want %d", got, want)
	}
	done := make(chan error, 1)
	go func() { done <- WaitallInto(ctx, nil, reqs...) }()
	deadline := time.Now().Add(10 * time.Second)
	for ws.ws[1].waitingBytes.Load() != want {
		if time.Now().After(deadline) {
			t.Fatalf("waitingBytes %d during the Waitall, want %d", ws.ws[1].waitingBytes.Load(), want)
		}
		time.Sleep(time.Millisecond)
	}
	for tag, n := range sizes {
		if err := ws.ws[0].Send(ctx, 1, tag, make([]byte, n)); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := ws.ws[1].waitingBytes.Load(); n != 0 {
		t.Fatalf("waitingBytes %d after the Waitall, want 0", n)
	}
}
