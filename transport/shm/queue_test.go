//go:build linux

package shm

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// queueStream sends count frames on stream tag, queueing those with
// queue(seq) true and sending the others, in order.
func queueStream(ep *Endpoint, peer, tag, count int, size func(uint64) int, queue func(uint64) bool) error {
	for seq := range uint64(count) {
		h := frame.Header{Kind: frame.Eager, Tag: int32(tag), Seq: seq}
		send := ep.Send
		if queue(seq) {
			send = ep.Queue
		}
		if err := send(context.Background(), peer, h, payloadFor(tag, seq, size(seq))); err != nil {
			return fmt.Errorf("stream %d frame %d: %w", tag, seq, err)
		}
	}
	return nil
}

// TestQueueOrder: goroutines of two ranks mixing queued and sent frames
// of all sizes to a third, several at once, while another goroutine of
// each sender polls (and so flushes), get every frame there once and each
// goroutine's in order.
func TestQueueOrder(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 3, func(c *Config) { c.Slots = 64 })
	const senders = 4
	n := count(2000)
	size := func(seq uint64) int { return int(seq*37) % 700 } // bundled and not
	queue := func(seq uint64) bool { return seq%5 != 0 }
	stop := make(chan struct{})
	var pollers, wg sync.WaitGroup
	for _, from := range []int{0, 2} {
		pollers.Go(func() {
			for {
				select {
				case <-stop:
					eps[from].PollDone(1)
					return
				default:
					eps[from].Poll(1)
				}
			}
		})
		for tag := range senders {
			wg.Go(func() {
				if err := queueStream(eps[from], 1, tag, n, size, queue); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()
	close(stop)
	pollers.Wait()
	checkStreams(t, sinks[1].wait(t, 2*senders*n, 30*time.Second), size)
}

// TestQueueFlushedByTimer: a queued frame reaches the peer with nobody
// polling or sending after it.
func TestQueueFlushedByTimer(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	start := time.Now()
	if err := eps[0].Queue(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: 5}, []byte("alone")); err != nil {
		t.Fatal(err)
	}
	if eps[0].pendingN.Load() != 1 {
		t.Fatalf("%d outboxes pending after one Queue, want 1 (the frame was not held back)", eps[0].pendingN.Load())
	}
	got := sinks[1].wait(t, 1, 5*time.Second)
	if string(got[0].payload) != "alone" {
		t.Fatalf("got %q", got[0].payload)
	}
	t.Logf("arrived after %v", time.Since(start))
	if d := time.Since(start); d > time.Second {
		t.Errorf("a lone queued frame took %v to arrive", d)
	}
	// The flusher counts the bundle written just after writing it, so
	// the frame may be delivered first.
	for deadline := time.Now().Add(time.Second); eps[0].pendingN.Load() != 0 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	if eps[0].pendingN.Load() != 0 {
		t.Errorf("%d outboxes still pending after the flush", eps[0].pendingN.Load())
	}
}

// TestQueueFlushedByPoll: a goroutine of the sending rank that polls
// writes what is pending first, long before the timer would.
func TestQueueFlushedByPoll(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	if err := eps[0].Queue(context.Background(), 1, frame.Header{Kind: frame.Eager}, []byte("x")); err != nil {
		t.Fatal(err)
	}
	eps[0].Poll(1)
	if n := eps[0].pendingN.Load(); n != 0 {
		t.Errorf("%d outboxes pending after a Poll, want 0", n)
	}
}

// TestQueueFlushedByFlush: Flush writes the pending bundle at once; the
// frame arrives without a poll by the sender.
func TestQueueFlushedByFlush(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	if err := eps[0].Queue(context.Background(), 1, frame.Header{Kind: frame.Eager, Seq: 9}, []byte("y")); err != nil {
		t.Fatal(err)
	}
	eps[0].Flush()
	if n := eps[0].pendingN.Load(); n != 0 {
		t.Errorf("%d outboxes pending after Flush, want 0", n)
	}
	if got := sinks[1].wait(t, 1, 5*time.Second); got[0].h.Seq != 9 || string(got[0].payload) != "y" {
		t.Errorf("got seq %d payload %q, want 9 and \"y\"", got[0].h.Seq, got[0].payload)
	}
}

// TestQueueFlushedByClose: frames queued just before Close still arrive,
// before the peer reports the closed rank lost.
func TestQueueFlushedByClose(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	const n = 7
	for i := range n {
		if err := eps[0].Queue(context.Background(), 1, frame.Header{Kind: frame.Eager, Seq: uint64(i)}, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	eps[0].Close()
	got := sinks[1].wait(t, n, 5*time.Second)
	for i, f := range got {
		if f.h.Seq != uint64(i) || f.payload[0] != byte(i) {
			t.Fatalf("frame %d: seq %d payload %v", i, f.h.Seq, f.payload)
		}
	}
	select {
	case err := <-sinks[1].lost:
		if !errors.Is(err, ErrPeerLost) {
			t.Errorf("lost with %v, want ErrPeerLost", err)
		}
	case <-time.After(5 * time.Second):
		t.Error("the closed rank was never reported lost")
	}
	if err := eps[0].Queue(context.Background(), 1, frame.Header{Kind: frame.Eager}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Queue after Close = %v, want ErrClosed", err)
	}
}

// TestQueueRacesClose: goroutines queue and send while the Endpoint
// closes under them. Every call returns (nil or ErrClosed), nothing
// panics or touches the unmapped segment, and frames queued before Close
// began arrive.
func TestQueueRacesClose(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	for i := range 5 {
		if err := eps[0].Queue(context.Background(), 1, frame.Header{Kind: frame.Eager, Seq: uint64(i)}, []byte{byte(i)}); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := 0; ; i++ {
				var err error
				if i%3 == 0 {
					err = eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: int32(g + 1)}, []byte("s"))
				} else {
					err = eps[0].Queue(context.Background(), 1, frame.Header{Kind: frame.Eager, Tag: int32(g + 1)}, []byte("q"))
				}
				// ErrPeerLost too: on a loaded machine these loops can
				// starve rank 1's heartbeat past PeerTimeout.
				if errors.Is(err, ErrClosed) || errors.Is(err, ErrPeerLost) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	time.Sleep(5 * time.Millisecond)
	eps[0].Close()
	wg.Wait()
	time.Sleep(2 * flushAfter) // a timer that fired during Close finds nothing to write
	got := sinks[1].wait(t, 5, 5*time.Second)
	for i := range 5 {
		if got[i].h.Tag != 0 || got[i].h.Seq != uint64(i) {
			t.Fatalf("frame %d: tag %d seq %d, want the queued frame %d first", i, got[i].h.Tag, got[i].h.Seq, i)
		}
	}
}

// TestQueueEager: eager frames queued with QueueEager — small ones
// bundled, big ones sent — and sent with SendEager — small ones in place,
// big ones as Send does — arrive in order among frames queued with Queue
// and sent with Send, with the header Queue would have given them; a bad
// peer is refused.
func TestQueueEager(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	ctx := context.Background()
	const n = 300
	size := func(i int) int { return 8 + i*7%900 } // some over bundleMax
	for i := range n {
		p := make([]byte, size(i))
		binary.LittleEndian.PutUint64(p, uint64(i))
		var err error
		switch i % 4 {
		case 0, 1:
			err = eps[0].QueueEager(ctx, 1, 4, int32(i), p)
		case 3:
			err = eps[0].SendEager(ctx, 1, 4, int32(i), p)
		case 2:
			err = eps[0].Queue(ctx, 1, frame.Header{Kind: frame.Eager, Comm: 4, Tag: int32(i), Aux: uint64(len(p))}, p)
		}
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if i%50 == 0 {
			h := frame.Header{Kind: frame.Eager, Comm: 4, Tag: -1, Aux: 8}
			if err := eps[0].Send(ctx, 1, h, make([]byte, 8)); err != nil {
				t.Fatal(err)
			}
		}
	}
	eps[0].Flush()
	got := sinks[1].wait(t, n+n/50, 10*time.Second)
	i := 0
	for _, f := range got {
		if f.h.Tag == -1 {
			continue
		}
		want := frame.Header{Kind: frame.Eager, Comm: 4, Source: 0, Tag: int32(i), Aux: uint64(size(i))}
		if f.h != want || binary.LittleEndian.Uint64(f.payload) != uint64(i) {
			t.Fatalf("frame %d: header %+v payload %d, want %+v", i, f.h, binary.LittleEndian.Uint64(f.payload), want)
		}
		i++
	}
	if i != n {
		t.Errorf("%d frames, want %d", i, n)
	}
	for _, peer := range []int{-1, 0, 2} {
		if err := eps[0].QueueEager(ctx, peer, 0, 1, nil); err == nil {
			t.Errorf("QueueEager to rank %d of 2 from rank 0 was accepted", peer)
		}
		if err := eps[0].SendEager(ctx, peer, 0, 1, nil); err == nil {
			t.Errorf("SendEager to rank %d of 2 from rank 0 was accepted", peer)
		}
	}
}
