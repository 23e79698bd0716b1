//go:build linux

package comm

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/shm"
)

// serialWorlds returns n serialized worlds over one passive shared-memory
// segment: each must be used by one goroutine at a time.
func serialWorlds(t testing.TB, n int, cfg Config) fixture {
	t.Helper()
	cfg.Serialized = true
	ws := shmWorldsIn(t, n, cfg, true, nil)
	for i, w := range ws {
		if !w.Serialized() {
			t.Fatalf("world %d is not serialized", i)
		}
	}
	return fixture{ws, func(r int) { ws[r].Close() }}
}

func TestSerialized(t *testing.T) {
	t.Run("sizes", func(t *testing.T) { testSendRecvSizes(t, serialWorlds) })
	t.Run("wildcards", func(t *testing.T) { testWildcards(t, serialWorlds) })
}

// TestSerializedNeedsPassive: a world asked to be serialized on a
// transport that receives by itself runs as usual.
func TestSerializedNeedsPassive(t *testing.T) {
	ws := shmWorlds(t, 2, Config{Serialized: true}).ws
	if ws[0].Serialized() {
		t.Fatal("serialized on a transport with a receive goroutine")
	}
	ctx := testCtx(t)
	go ws[0].Send(ctx, 1, 1, payload(0, 1, 100))
	buf := make([]byte, 100)
	if _, err := ws[1].Recv(ctx, 0, 1, buf); err != nil {
		t.Fatal(err)
	}
}

// TestSerializedWindows streams windows of non-blocking sends of every
// protocol's sizes, each rank's world used by one goroutine, and checks
// every message; under -race any overlap of delivery with the caller's
// calls would be reported.
func TestSerializedWindows(t *testing.T) {
	ws := serialWorlds(t, 2, Config{EagerLimit: 4 << 10, PullLimit: 2 << 10, ChunkSize: 16 << 10}).ws
	ctx := testCtx(t)
	sizes := []int{0, 8, 100, 1500, 3000, 9000, 40000}
	windows := 60
	if testing.Short() {
		windows = 15
	}
	const window = 16
	errc := make(chan error, 1)
	go func() {
		ack := make([]byte, 1)
		reqs := make([]*Request, window)
		for i := range windows {
			for j := range reqs {
				n := sizes[(i+j)%len(sizes)]
				var err error
				if reqs[j], err = ws[0].Isend(1, j, payload(0, j+window*i, n)); err != nil {
					errc <- err
					return
				}
			}
			if _, err := Waitall(ctx, reqs...); err != nil {
				errc <- err
				return
			}
			if _, err := ws[0].Recv(ctx, 1, window, ack); err != nil {
				errc <- err
				return
			}
		}
		errc <- nil
	}()
	reqs := make([]*Request, window)
	bufs := make([][]byte, window)
	for i := range windows {
		for j := range reqs {
			bufs[j] = make([]byte, sizes[(i+j)%len(sizes)])
			var err error
			if reqs[j], err = ws[1].Irecv(0, j, bufs[j]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := Waitall(ctx, reqs...); err != nil {
			t.Fatal(err)
		}
		for j, b := range bufs {
			if err := check(b, 0, j+window*i, len(b)); err != nil {
				t.Fatalf("window %d message %d: %v", i, j, err)
			}
		}
		if err := Free(reqs...); err != nil {
			t.Fatal(err)
		}
		if err := ws[1].Send(ctx, 0, window, []byte{1}); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestSerializedWaits: a serialized world's waits end when their
// message comes late (the waiter slept on the transport meanwhile), when
// ctx ends (and the withdrawn receive takes nothing), and when the peer
// is lost; Probe waits the same way.
func TestSerializedWaits(t *testing.T) {
	f := serialWorlds(t, 2, Config{})
	ws := f.ws
	ctx := testCtx(t)
	send := func(delay time.Duration, tag, n int) chan error {
		errc := make(chan error, 1)
		go func() {
			time.Sleep(delay)
			errc <- ws[0].Send(ctx, 1, tag, payload(0, tag, n))
		}()
		return errc
	}
	errc := send(5*time.Millisecond, 1, 64) // beyond the spin budget: the receiver sleeps
	buf := make([]byte, 64)
	if _, err := ws[1].Recv(ctx, 0, 1, buf); err != nil || check(buf, 0, 1, 64) != nil {
		t.Fatalf("late message: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}

	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := ws[1].Recv(short, 0, 2, buf); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Recv past its deadline: %v", err)
	}
	errc = send(5*time.Millisecond, 2, 64)
	st, err := ws[1].Probe(ctx, 0, 2)
	if err != nil || st.Len != 64 {
		t.Fatalf("Probe: %+v %v", st, err)
	}
	if _, err := ws[1].Recv(ctx, 0, 2, buf); err != nil || check(buf, 0, 2, 64) != nil {
		t.Fatalf("message after a withdrawn receive: %v", err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}

	go func() { time.Sleep(5 * time.Millisecond); f.kill(0) }()
	if _, err := ws[1].Recv(ctx, 0, 3, buf); !errors.Is(err, ErrPeerLost) {
		t.Fatalf("Recv from a closed peer: %v", err)
	}
}

// TestSerializedCredit floods a receiver that is not receiving with many
// times its share of small messages: the sender, spending credit without
// atomics (spendSerial), goes rendezvous when it runs out, the receiver
// never holds more than its budget unexpected, every message arrives in
// order, and the credit comes back to the sender's next poll.
func TestSerializedCredit(t *testing.T) {
	const budget = 16 << 10
	ws := serialWorlds(t, 2, Config{UnexpectedBudget: budget}).ws
	ctx := testCtx(t)
	share, batch := ws[0].cfg.share(), ws[1].batch
	n := int(4 * share / eagerCost(8))
	errc := make(chan error, 1)
	go func() {
		for i := range n {
			if err := ws[0].Send(ctx, 1, 1, payload(0, i, 8)); err != nil {
				errc <- err
				return
			}
		}
		_, err := ws[0].Recv(ctx, 1, 2, make([]byte, 1)) // its wait takes the credit back in
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond) // the sender runs out meanwhile
	buf := make([]byte, 8)
	for i := range n {
		if _, err := ws[1].Recv(ctx, 0, 1, buf); err != nil || check(buf, 0, i, 8) != nil {
			t.Fatalf("message %d: %v", i, err)
		}
		if u := ws[1].UnexpectedBytes(); u > budget {
			t.Fatalf("%d bytes unexpected, budget %d", u, budget)
		}
	}
	if err := ws[1].Send(ctx, 0, 2, []byte{1}); err != nil {
		t.Fatal(err)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
	p := &ws[0].peers[1]
	if short := share - p.credit.Load() - p.taken; short >= batch+max(1, batch/8) {
		t.Errorf("sender short of %d bytes of credit after the stream", short)
	}
}

// BenchmarkSerialPingPong is BenchmarkPingPong's round trip between
// serialized worlds, next to default worlds on the same transport.
func BenchmarkSerialPingPong(b *testing.B) {
	for _, size := range []int{1, 8, 1024} {
		b.Run(fmt.Sprintf("world=default/size=%d", size), func(b *testing.B) {
			pingPong(b, shmWorlds(b, 2, Config{}).ws, size)
		})
		b.Run(fmt.Sprintf("world=serialized/size=%d", size), func(b *testing.B) {
			pingPong(b, serialWorlds(b, 2, Config{}).ws, size)
		})
	}
}

// TestSerializedTestPolls: in a serialized world nothing arrives between
// calls, so Test, Iprobe and a link's TryRecv poll, as MPI_Test and
// MPI_Iprobe do: loops of them alone see their messages come.
func TestSerializedTestPolls(t *testing.T) {
	ws := serialWorlds(t, 2, Config{}).ws
	ctx := testCtx(t)
	l0, err := ws[0].Link(1, 3)
	if err != nil {
		t.Fatal(err)
	}
	l1, err := ws[1].Link(0, 3)
	if err != nil {
		t.Fatal(err)
	}
	errc := make(chan error, 1)
	go func() { // rank 0's goroutine
		time.Sleep(5 * time.Millisecond)
		err := ws[0].Send(ctx, 1, 1, payload(0, 1, 8))
		if err == nil {
			err = ws[0].Send(ctx, 1, 2, payload(0, 2, 8))
		}
		if err == nil {
			err = l0.Send(ctx, []byte("link"))
		}
		errc <- err
	}()
	spinUntil := func(what string, done func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !done() {
			if time.Now().After(deadline) {
				t.Fatalf("%s never became true", what)
			}
		}
	}
	buf := make([]byte, 8)
	r, err := ws[1].Irecv(0, 1, buf)
	if err != nil {
		t.Fatal(err)
	}
	spinUntil("Test", func() bool { _, ok, _ := r.Test(); return ok })
	spinUntil("Iprobe", func() bool { _, ok := ws[1].Iprobe(0, 2); return ok })
	lbuf := make([]byte, 8)
	var n int
	spinUntil("TryRecv", func() bool { k, ok, _ := l1.TryRecv(lbuf); n = k; return ok })
	if string(lbuf[:n]) != "link" || check(buf, 0, 1, 8) != nil {
		t.Fatalf("got %q and %v", lbuf[:n], buf)
	}
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}

// TestPassiveNeedsSerialized: a default world on a passive transport
// would hang its sleeping waiters, so New refuses it.
func TestPassiveNeedsSerialized(t *testing.T) {
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-comm-test-")
	if err != nil {
		t.Skip(err)
	}
	defer os.RemoveAll(dir)
	_, err = openWorld(Config{Rank: 0, Size: 1}, openSHM(shm.Config{Rank: 0, Size: 1, JobID: "comm-passive", Dir: dir, Passive: true}))
	if err == nil || !strings.Contains(err.Error(), "Serialized") {
		t.Fatalf("New: %v", err)
	}
}

// BenchmarkSerialWindowOneCore is BenchmarkWindowOneCore — a window of 64
// Isends, then 64 Irecvs and their Waitall, one goroutine driving both
// ranks — between serialized worlds: the CPU cost of the message-rate
// pattern without a second core's cache lines in it. (The sending rank's
// Waitall polls once, which takes its credit back in: without that it
// would run out, go rendezvous and wait for an answer only this goroutine
// could give.)
func BenchmarkSerialWindowOneCore(b *testing.B) {
	windowOneCore(b, serialWorlds(b, 2, Config{}).ws)
}

// TestSerializedWaitallPolls drives two serialized worlds from one
// goroutine, as BenchmarkSerialWindowOneCore does, through many times the
// sender's credit: only the sending rank's Waitall, whose eager sends are
// complete, gives its world a chance to take the credit back in. Without
// that poll the sender would go rendezvous and wait for an answer that
// this goroutine, waiting, could never give.
func TestSerializedWaitallPolls(t *testing.T) {
	// A window costs 12 KiB of credit: a budget of 64 KiB leaves room for
	// the batch the receiver keeps back (a quarter) and the credit it
	// returns only at its next call.
	ws := serialWorlds(t, 2, Config{UnexpectedBudget: 64 << 10}).ws
	ctx := testCtx(t)
	const win = 64
	windows := int(8*ws[0].cfg.share()/eagerCost(8)) / win
	sreqs, rreqs := make([]*Request, win), make([]*Request, win)
	in := make([]byte, 8)
	done := make(chan error, 1)
	go func() { // one goroutine for both worlds; the test waits for it
		for w := range windows {
			for i := range sreqs {
				var err error
				if sreqs[i], err = ws[0].Isend(1, 1, payload(0, w, 8)); err != nil {
					done <- err
					return
				}
			}
			if err := WaitallInto(ctx, nil, sreqs...); err != nil {
				done <- err
				return
			}
			for i := range rreqs {
				var err error
				if rreqs[i], err = ws[1].Irecv(0, 1, in); err != nil {
					done <- err
					return
				}
			}
			if err := WaitallInto(ctx, nil, rreqs...); err != nil {
				done <- err
				return
			}
			Free(rreqs...)
		}
		done <- nil
	}()
	awaitDone(t, done, "the sending world never took its credit back")
}

// awaitDone fails t with done's error, or with why if done says nothing
// for 20 seconds (the goroutine behind it hangs).
func awaitDone(t *testing.T, done <-chan error, why string) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal(why)
	}
}

// BenchmarkSerialOneCore is BenchmarkOneCore between serialized worlds:
// a Send and its Recv on one goroutine, the software cost of a message
// at both ends with no cache line crossing cores.
func BenchmarkSerialOneCore(b *testing.B) {
	for _, size := range []int{8, 40, 41, 64} {
		b.Run(fmt.Sprintf("size=%d", size), func(b *testing.B) { oneCore(b, serialWorlds(b, 2, Config{}).ws, size) })
	}
}

// TestSerializedSendPollsForCredit: a rank that only sends, with blocking
// eager Sends, takes in the credit the receiver returns when it runs
// short (spendSerial polls), instead of falling back to rendezvous. One
// goroutine drives both worlds here, so a rendezvous, which would wait
// for the receiver's answer, would never end.
func TestSerializedSendPollsForCredit(t *testing.T) {
	ws := serialWorlds(t, 2, Config{UnexpectedBudget: 16 << 10}).ws
	ctx := testCtx(t)
	n := int(8 * ws[0].cfg.share() / (8 + msgOverhead))
	done := make(chan error, 1)
	go func() {
		buf := make([]byte, 8)
		for i := range n {
			if err := ws[0].Send(ctx, 1, 1, payload(0, i, 8)); err != nil {
				done <- err
				return
			}
			if _, err := ws[1].Recv(ctx, 0, 1, buf); err != nil || check(buf, 0, i, 8) != nil {
				done <- fmt.Errorf("message %d: %v", i, err)
				return
			}
		}
		done <- nil
	}()
	awaitDone(t, done, "the sender ran out of credit without looking for the returned")
}

// BenchmarkSerialLinkOneCore is BenchmarkSerialOneCore for a link message
// (the collectives' path: a TrySend and a TryRecv that polls), beside a
// tagged Send and Recv of the same 8 bytes on the same worlds: the
// software cost of each at both ends.
func BenchmarkSerialLinkOneCore(b *testing.B) {
	ws := serialWorlds(b, 2, Config{}).ws
	b.Run("path=p2p", func(b *testing.B) { oneCore(b, ws, 8) })
	b.Run("path=link", func(b *testing.B) {
		x, y := linkPair(b, ws, 0)
		buf := make([]byte, 8)
		b.ReportAllocs()
		for b.Loop() {
			for tries := 0; ; tries++ {
				ok, err := x.TrySend(buf)
				if err != nil || tries == 1000 {
					b.Fatal(tries, err)
				}
				if ok {
					break
				}
				y.w.pollSerial() // the credit the receiver owes
				x.w.pollSerial()
			}
			for tries := 0; ; tries++ {
				_, ok, err := y.TryRecv(buf)
				if err != nil || tries == 1000 {
					b.Fatal(tries, err)
				}
				if ok {
					break
				}
				x.w.pollSerial() // the sender's queued frames
			}
		}
	})
}
