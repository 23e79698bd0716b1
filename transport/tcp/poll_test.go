package tcp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// seqCheck checks exactly-once, in-order delivery per tag of frames whose
// payload length and bytes follow from their Seq (see seqPayload).
type seqCheck struct {
	payload func(seq uint64) []byte // seqPayload unless set
	mu      sync.Mutex
	next    map[int32]uint64
	total   atomic.Int64
	bad     atomic.Value // first error, a string
}

func newSeqCheck() *seqCheck { return &seqCheck{payload: seqPayload, next: map[int32]uint64{}} }

// seqPayload is frame seq's payload: mostly 8 bytes, sometimes longer
// than a direct write copies (copyLimit) or than the read buffer.
func seqPayload(seq uint64) []byte {
	n := 8
	switch seq % 50 {
	case 7:
		n = copyLimit + 100
	case 31:
		n = readBufSize + 1000
	}
	return patterned(seq, n)
}

// patterned returns n bytes that depend on seq.
func patterned(seq uint64, n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(seq + uint64(i))
	}
	return p
}

func (s *seqCheck) deliver(_ int, h frame.Header, p []byte) {
	s.mu.Lock()
	want := s.next[h.Tag]
	s.next[h.Tag] = want + 1
	s.mu.Unlock()
	if h.Seq != want || string(p) != string(s.payload(h.Seq)) {
		s.bad.CompareAndSwap(nil, fmt.Sprintf("tag %d: seq %d (%d bytes), want seq %d", h.Tag, h.Seq, len(p), want))
	}
	s.total.Add(1)
}

func (s *seqCheck) wait(t *testing.T, want int64) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for s.total.Load() < want && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(10 * time.Millisecond) // a duplicate would show up now
	if got := s.total.Load(); got != want {
		t.Fatalf("delivered %d frames, want %d", got, want)
	}
	if bad := s.bad.Load(); bad != nil {
		t.Fatal(bad)
	}
}

// TestPollExactlyOnce: frames sent by Send and Queue from several
// goroutines are delivered exactly once and in order per sender while
// goroutines on the receiving side Poll in bursts, with pauses long enough
// for the reader goroutine to take over between them, and PollDone.
func TestPollExactlyOnce(t *testing.T) {
	eachSock(t, testPollExactlyOnce)
}

func testPollExactlyOnce(t *testing.T, detach bool) {
	check := newSeqCheck()
	eps, _ := job(t, 2, func(c *Config) {
		if c.Rank == 1 {
			c.Deliver = check.deliver
		}
	})
	setDetach(eps, detach)
	senders, frames := 4, 400
	if testing.Short() {
		frames = 150
	}
	stop := make(chan struct{})
	var pollers sync.WaitGroup
	for g := range 3 {
		pollers.Go(func() { pollBursts(eps[1], g, stop) })
	}
	sendFromGoroutines(t, senders, frames, func(g int, i uint64) error {
		send := eps[0].Send
		if (i/10)%2 == 1 {
			send = eps[0].Queue
		}
		return send(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: int32(g), Seq: i}, seqPayload(i))
	})
	check.wait(t, int64(senders*frames))
	close(stop)
	pollers.Wait()
	checkSock(t, eps[1], 0, detach)
}

// pollBursts polls e until stop: bursts of Poll(0) or Poll(-1), then a
// pause, some shorter and some longer than standAside, sometimes after
// PollDone.
func pollBursts(e *Endpoint, g int, stop chan struct{}) {
	for i := 0; ; i++ {
		select {
		case <-stop:
			return
		default:
		}
		peer := 0
		if (i+g)%2 == 1 {
			peer = -1
		}
		for range 200 {
			e.Poll(peer)
		}
		if i%3 == 0 {
			e.PollDone(peer)
		}
		time.Sleep(time.Duration(i%4) * standAside / 2)
	}
}

// TestCloseWhilePolling: Close returns promptly, with every goroutine of
// the Endpoint gone, while other goroutines keep polling it and a peer
// keeps sending; Poll then reports nothing.
func TestCloseWhilePolling(t *testing.T) {
	eachSock(t, testCloseWhilePolling)
}

func testCloseWhilePolling(t *testing.T, detach bool) {
	var got atomic.Int64
	eps, _ := job(t, 2, func(c *Config) { c.Deliver = func(int, frame.Header, []byte) { got.Add(1) } })
	setDetach(eps, detach)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		for eps[0].Send(ctx, 1, frame.Header{Kind: frame.Eager}, make([]byte, 8)) == nil {
		}
	})
	stop := make(chan struct{})
	var polls atomic.Int64
	for range 2 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				if eps[1].Poll(0) {
					polls.Add(1)
				}
			}
		})
	}
	for got.Load() < 100 {
		time.Sleep(time.Millisecond)
	}
	c := eps[1].peers[0].c.Load()
	start := time.Now()
	eps[1].Close()
	if d := time.Since(start); d > 2*closeLinger {
		t.Errorf("Close took %v while goroutines polled", d)
	}
	after := got.Load()
	time.Sleep(10 * time.Millisecond)
	if got.Load() != after || eps[1].Poll(0) || eps[1].Poll(-1) {
		t.Errorf("frames delivered after Close returned")
	}
	close(stop)
	cancel()
	wg.Wait()
	t.Logf("%d frames delivered, %d Polls delivered some", after, polls.Load())
	checkClosed(t, c)
}

// TestPeerDeathWhilePolling: a peer that dies while a goroutine keeps
// polling its connection is reported lost within a second, although the
// poller never calls PollDone.
func TestPeerDeathWhilePolling(t *testing.T) {
	eachSock(t, testPeerDeathWhilePolling)
}

func testPeerDeathWhilePolling(t *testing.T, detach bool) {
	rec := newLostRec()
	eps, _ := job(t, 1, func(c *Config) {
		c.Size, c.Lost, c.Logger = 2, rec.lost, slog.New(slog.DiscardHandler)
		c.Heartbeat = time.Minute // so that Pings go unanswered: no write notices the death
	})
	setDetach(eps, detach)
	nc, _, err := fakeDialer(t, eps[0].Addr(), authConf{rank: 1, size: 2, job: "job-1", secret: testSecret}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for eps[0].peers[1].c.Load() == nil {
		time.Sleep(time.Millisecond)
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
				eps[0].Poll(1)
			}
		}
	})
	defer func() { close(stop); wg.Wait() }()
	// Pings wake the reader goroutine (if the poller does not read them
	// first), which then finds a poller active and stands aside.
	ping := appendFrame(nil, frame.Header{Kind: frame.Ping, Source: 1}, nil)
	for range 20 {
		if _, err := nc.Write(ping); err != nil {
			t.Fatal(err)
		}
		time.Sleep(standAside / 10)
	}
	nc.Close()
	if err := waitLost(t, rec, 1, time.Second); !errors.Is(err, ErrPeerLost) {
		t.Errorf("lost error %v", err)
	}
}

// eachSock runs f as a subtest with connections left in the netpoller
// and, where the platform detaches them (Linux), with detached ones.
func eachSock(t *testing.T, f func(t *testing.T, detach bool)) {
	t.Run("netpoller", func(t *testing.T) { f(t, false) })
	t.Run("detached", func(t *testing.T) {
		if maxDetached == 0 {
			t.Skip("connections are not detached on this platform")
		}
		f(t, true)
	})
}

// setDetach keeps the endpoints' connections in the netpoller unless
// detach is set; it must be called before they connect.
func setDetach(eps []*Endpoint, detach bool) {
	if !detach {
		for _, e := range eps {
			e.detachLeft.Store(0)
		}
	}
}

// checkSock fails t unless e's connection to peer is detached exactly
// when detach is set.
func checkSock(t *testing.T, e *Endpoint, peer int, detach bool) {
	t.Helper()
	c := e.peers[peer].c.Load()
	if c == nil {
		t.Fatalf("rank %d has no connection to rank %d", e.Rank(), peer)
	}
	if _, inNetpoller := c.sock().(netSock); inNetpoller == detach {
		t.Errorf("rank %d's connection to rank %d: %T, want detached %v", e.Rank(), peer, c.sock(), detach)
	}
}

// checkClosed fails t if c's socket is a descriptor still open.
func checkClosed(t *testing.T, c *conn) {
	t.Helper()
	if s, ok := c.sock().(interface{ isClosed() bool }); ok && !s.isClosed() {
		t.Errorf("descriptor still open after Close")
	}
}
