//go:build linux

package shm

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/plexus-hpc/plexus/ring"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// TestBulkFrames: frames on both sides of the one-slot, bulk and chunk
// limits, from several goroutines, many times around the bulk buffer,
// arrive whole and each goroutine's in order; short-header (eager) frames
// through the bulk buffer keep their Aux and Source.
func TestBulkFrames(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	edges := []int{0, 1, ring.SlotPayload - headerSize, ring.SlotPayload - headerSize + 1, bulkMin - headerSize, bulkMin - headerSize + 1, 1000,
		bulkMax - 1, bulkMax, bulkMax + 1, 3 * bulkMax}
	size := func(seq uint64) int {
		if seq < uint64(len(edges)) {
			return edges[seq]
		}
		return int(seq*997) % (bulkMax + 100)
	}
	n := count(400) // about 3 MB each: the 64 KiB buffer wraps dozens of times
	const senders = 3
	var wg sync.WaitGroup
	for tag := range senders {
		wg.Go(func() {
			if err := sendStream(eps[0], 1, tag, n, size); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	checkStreams(t, sinks[1].wait(t, senders*n, 20*time.Second), size)

	// Eager frames (short header): Aux and Source come back.
	p := payloadFor(7, 0, 5000)
	if err := eps[1].SendEager(context.Background(), 0, 3, 7, p); err != nil {
		t.Fatal(err)
	}
	got := sinks[0].wait(t, 1, 5*time.Second)[0]
	if want := (frame.Header{Kind: frame.Eager, Comm: 3, Source: 1, Tag: 7, Aux: 5000}); got.h != want || !bytes.Equal(got.payload, p) {
		t.Errorf("eager bulk frame: header %+v, %d bytes; want %+v, 5000 bytes intact", got.h, len(got.payload), want)
	}
}

// TestBulkWaitsForRoom: a sender whose bulk frames the peer has not yet
// consumed waits for room, and goes on once the peer delivers them.
func TestBulkWaitsForRoom(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	release := make(chan struct{})
	var once sync.Once
	hook := func(_ int, h frame.Header, p []byte) {
		once.Do(func() { <-release }) // the first Deliver holds the receiver
		sinks[1].collect(0, h, p)
	}
	sinks[1].hook.Store(&hook)
	const frames = bulkBytes/bulkMax + 2 // more than the buffer holds
	sent := make(chan int, frames)
	go func() {
		for i := range frames {
			h := frame.Header{Kind: frame.Eager, Tag: 1, Seq: uint64(i)}
			if err := eps[0].Send(context.Background(), 1, h, payloadFor(1, uint64(i), bulkMax)); err != nil {
				t.Error(err)
				return
			}
			sent <- i
		}
	}()
	for range bulkBytes / bulkMax {
		<-sent // these fit
	}
	select {
	case i := <-sent:
		t.Fatalf("frame %d sent while the bulk buffer was full and unconsumed", i)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	checkStreams(t, sinks[1].wait(t, frames, 10*time.Second), func(uint64) int { return bulkMax })
}

// TestBulkPeerLost: a sender waiting for room in the bulk buffer of a
// peer that closes gets ErrPeerLost, not a hang.
func TestBulkPeerLost(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	block := make(chan struct{})
	hook := func(int, frame.Header, []byte) { <-block }
	sinks[1].hook.Store(&hook)
	defer close(block)
	errc := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, make([]byte, bulkMax)); err != nil {
				errc <- err
				return
			}
		}
	}()
	time.Sleep(20 * time.Millisecond) // let the sender fill the buffer
	go eps[1].Close()                 // blocks until the receiver's Deliver returns: after the check
	select {
	case err := <-errc:
		if !errors.Is(err, ErrPeerLost) {
			t.Errorf("Send = %v, want ErrPeerLost", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sender still waiting for bulk room 10 s after the peer closed")
	}
}

// TestBulkMalformed: bulk frames that point outside the buffer, go
// backwards, or carry an unknown kind are refused, and nothing is read.
func TestBulkMalformed(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	e := eps[1]
	delivered := 0
	e.cfg.Deliver = func(int, frame.Header, []byte) { delivered++ }
	mkFrame := func(kind frame.Kind, n, off int, end uint64) []byte {
		b := make([]byte, bulkSize)
		putBulk(b, frame.Header{Kind: kind}, n, off, end, false)
		return b
	}
	e.rx.Lock()
	defer e.rx.Unlock()
	var in inbox
	if err := e.startFrame(0, &in, mkFrame(frame.Eager, 100, 0, 128)); err != nil {
		t.Fatalf("a good bulk frame: %v", err)
	}
	for _, c := range []struct {
		name string
		msg  []byte
	}{
		{"past the end", mkFrame(frame.Eager, 100, bulkBytes-50, 1<<20)},
		{"too long", mkFrame(frame.Eager, bulkMax+1, 0, 1<<20)},
		{"end not after the last", mkFrame(frame.Eager, 10, 0, 128)},
		{"end a buffer ahead", mkFrame(frame.Eager, 10, 0, 128+bulkBytes+1)},
		{"unknown kind", mkFrame(frame.Kind(99), 10, 0, 1<<12)},
		{"truncated", mkFrame(frame.Eager, 10, 0, 1<<12)[:bulkSize-1]},
	} {
		if err := e.startFrame(0, &in, c.msg); err == nil {
			t.Errorf("%s: accepted", c.name)
		}
	}
	if delivered != 1 {
		t.Errorf("%d deliveries, want 1 (the good frame)", delivered)
	}

	// Bundles: whole frames are delivered where they lie; a partial frame
	// or a bulk frame inside one is refused.
	data := e.seg.bulkData(0, 1)
	bundle := func(off int, frames ...[]byte) []byte {
		n := copy(data[off:], bytes.Join(frames, nil))
		b := make([]byte, bulkSize)
		putBulk(b, frame.Header{}, n, off, e.in[0].bulk.end+uint64(roundUp(n, line)), true)
		return b
	}
	eager := firstMessage(frame.Header{Kind: frame.Eager, Aux: 3}, 3, []byte("abc"))
	if err := e.startFrame(0, &in, bundle(128, eager, eager)); err != nil || delivered != 3 {
		t.Errorf("a good bundle: %v, %d deliveries in all, want 3", err, delivered)
	}
	for _, c := range []struct {
		name string
		msg  []byte
	}{
		{"a partial frame", bundle(256, eager, eager[:len(eager)-1])},
		{"a bulk frame", bundle(256, eager, mkFrame(frame.Eager, 10, 0, 1<<20))},
	} {
		if err := e.startFrame(0, &in, c.msg); err == nil {
			t.Errorf("a bundle with %s: accepted", c.name)
		}
	}
}

// TestBulkRestartsWhenConsumed: a sender that polled since its last bulk
// frame, and finds all its bulk frames consumed, puts the next payload at
// the start of the buffer again (its lines are warm there); without a
// poll between them, frames follow one another.
func TestBulkRestartsWhenConsumed(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	offsets := make(chan int, 8)
	hook := func(_ int, h frame.Header, p []byte) {
		offsets <- int(uintptr(unsafe.Pointer(&p[0])) - uintptr(unsafe.Pointer(&eps[1].in[0].bulk.data[0])))
	}
	sinks[1].hook.Store(&hook)
	send := func() int {
		t.Helper()
		if err := eps[0].Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, make([]byte, 2000)); err != nil {
			t.Fatal(err)
		}
		select {
		case off := <-offsets:
			return off
		case <-time.After(5 * time.Second):
			t.Fatal("bulk frame not delivered")
		}
		return 0
	}
	if off := send(); off != 0 {
		t.Fatalf("first frame at %d, want 0", off)
	}
	if off := send(); off != 2048 {
		t.Errorf("second frame, no poll between, at %d, want 2048", off)
	}
	deadline := time.Now().Add(5 * time.Second)
	for atomic.LoadUint64(eps[1].in[0].bulk.consumed) != 4096 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond) // the receiver publishes when its poll ends
	}
	eps[0].Poll(1)
	if off := send(); off != 0 {
		t.Errorf("frame after a poll, all consumed, at %d, want 0", off)
	}
}
