package comm

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// TestNonOvertaking mixes eager and rendezvous messages on one tag; they
// must be received in the order they were sent, through exact and
// wildcard receives alike.
func TestNonOvertaking(t *testing.T) { eachTransport(t, testNonOvertaking) }

func testNonOvertaking(t *testing.T, mk func(testing.TB, int, Config) fixture) {
	ws := mk(t, 2, Config{EagerLimit: 512, ChunkSize: 1024}).ws
	ctx := testCtx(t)
	const n = 200
	lens := func(i int) int { return []int{0, 8, 511, 512, 3000}[i%5] + i }
	go func() {
		for i := range n {
			b := payload(0, 7, lens(i))
			b = append(b[:0:0], b...)
			if len(b) > 0 {
				b[0] = byte(i)
			}
			if err := ws[0].Send(ctx, 1, 7, b); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	buf := make([]byte, 4096)
	for i := range n {
		src, tag := 0, 7
		if i%3 == 1 {
			src = AnySource
		}
		if i%3 == 2 {
			tag = AnyTag
		}
		st, err := ws[1].Recv(ctx, src, tag, buf)
		if err != nil {
			t.Fatal(err)
		}
		if st.Len != lens(i) || (st.Len > 0 && buf[0] != byte(i)) {
			t.Fatalf("receive %d got message of %d bytes starting %d", i, st.Len, buf[0])
		}
	}
}

func TestRequests(t *testing.T) { eachTransport(t, testRequests) }

func testRequests(t *testing.T, mk func(testing.TB, int, Config) fixture) {
	ws := mk(t, 2, Config{EagerLimit: 1024, ChunkSize: 2048}).ws
	ctx := testCtx(t)
	var reqs []*Request
	for tag, n := range []int{4, 1000, 5000, 100} {
		r, err := ws[1].Irecv(0, tag, make([]byte, n))
		if err != nil {
			t.Fatal(err)
		}
		if _, done, _ := r.Test(); done {
			t.Fatalf("receive %d done before any send", tag)
		}
		reqs = append(reqs, r)
	}
	var sends []*Request
	for tag, n := range []int{4, 1000, 5000, 100} {
		r, err := ws[0].Isend(1, tag, payload(0, tag, n))
		if err != nil {
			t.Fatal(err)
		}
		sends = append(sends, r)
	}
	sts, err := Waitall(ctx, append(reqs, sends...)...)
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range reqs {
		if err := check(r.buf, 0, i, sts[i].Len); err != nil {
			t.Error(err)
		}
		if st, done, err := r.Test(); !done || err != nil || st != sts[i] {
			t.Errorf("Test after Wait: %+v %v %v", st, done, err)
		}
	}
}

func TestProbe(t *testing.T) {
	ws, _ := twinWorlds(t, 3, Config{EagerLimit: 1024})
	ctx := testCtx(t)
	if _, ok := ws[0].Iprobe(AnySource, AnyTag); ok {
		t.Fatal("Iprobe found a message in an empty world")
	}
	done := make(chan Status)
	go func() {
		st, err := ws[0].Probe(ctx, AnySource, 5)
		if err != nil {
			t.Error(err)
		}
		done <- st
	}()
	time.Sleep(10 * time.Millisecond)
	go ws[2].Send(ctx, 0, 5, payload(2, 5, 3000))
	st := <-done
	if st != (Status{Source: 2, Tag: 5, Len: 3000}) {
		t.Fatalf("probe: %+v", st)
	}
	buf := make([]byte, st.Len)
	if _, err := ws[0].Recv(ctx, st.Source, st.Tag, buf); err != nil {
		t.Fatal(err)
	}
	if err := check(buf, 2, 5, 3000); err != nil {
		t.Error(err)
	}
}

// TestPeerLost kills a rank while others wait on it in every way; all of
// them must fail with ErrPeerLost within a second.
func TestPeerLost(t *testing.T) { eachTransport(t, testPeerLost) }

func testPeerLost(t *testing.T, mk func(testing.TB, int, Config) fixture) {
	f := mk(t, 3, Config{EagerLimit: 256})
	ws := f.ws
	ctx := testCtx(t)
	var wg sync.WaitGroup
	errs := make(chan error, 10)
	wait := func(f func() error) {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- f() }()
	}
	for i := range 3 {
		wait(func() error { _, err := ws[0].Recv(ctx, 2, i, make([]byte, 8)); return err })
	}
	wait(func() error { _, err := ws[0].Recv(ctx, 2, AnyTag, make([]byte, 8)); return err })
	wait(func() error { return ws[0].Send(ctx, 2, 1, make([]byte, 4096)) })
	wait(func() error { _, err := ws[1].Probe(ctx, 2, 3); return err })
	// A rendezvous receive that has matched and waits for data.
	ws[2].Isend(1, 9, make([]byte, 4096))
	time.Sleep(20 * time.Millisecond)
	start := time.Now()
	f.kill(2)
	wg.Wait()
	close(errs)
	for err := range errs {
		if !errors.Is(err, ErrPeerLost) {
			t.Errorf("got %v, want ErrPeerLost", err)
		}
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("waiters took %v to fail", d)
	}
	if _, err := ws[0].Recv(ctx, 2, 0, nil); !errors.Is(err, ErrPeerLost) {
		t.Errorf("receive after the loss: %v", err)
	}
	if err := ws[0].Send(ctx, 2, 0, nil); !errors.Is(err, ErrPeerLost) {
		t.Errorf("send after the loss: %v", err)
	}
	// The survivors go on.
	go ws[0].Send(ctx, 1, 3, payload(0, 3, 8))
	if _, err := ws[1].Recv(ctx, 0, 3, make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
}

func TestContextCancel(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{EagerLimit: 256})
	for _, op := range []string{"recv", "send", "probe", "wait"} {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		var err error
		switch op {
		case "recv":
			_, err = ws[0].Recv(ctx, 1, 1, make([]byte, 8))
		case "send":
			err = ws[0].Send(ctx, 1, 1, make([]byte, 1000))
		case "probe":
			_, err = ws[0].Probe(ctx, AnySource, AnyTag)
		case "wait":
			r, _ := ws[0].Irecv(AnySource, 2, nil)
			_, err = r.Wait(ctx)
		}
		cancel()
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("%s: %v, want DeadlineExceeded", op, err)
		}
	}
	// The abandoned rendezvous send is answered with an abort; nothing
	// waits for it, and the receive that matches it says so.
	ctx := testCtx(t)
	if _, err := ws[1].Recv(ctx, 0, 1, make([]byte, 1000)); !errors.Is(err, ErrAborted) {
		t.Errorf("receive of an abandoned send: %v, want ErrAborted", err)
	}
	if n, posted := ws[0].table.Len(); n+posted != 0 {
		t.Errorf("table holds %d messages, %d receives after cancels", n, posted)
	}
}

func TestClose(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{})
	ctx := testCtx(t)
	errc := make(chan error, 2)
	go func() { _, err := ws[0].Recv(ctx, AnySource, AnyTag, nil); errc <- err }()
	go func() { _, err := ws[0].Recv(ctx, 1, 4, nil); errc <- err }()
	time.Sleep(10 * time.Millisecond)
	ws[0].Close()
	for range 2 {
		if err := <-errc; !errors.Is(err, ErrClosed) {
			t.Errorf("waiting receive: %v, want ErrClosed", err)
		}
	}
	if err := ws[0].Send(ctx, 1, 0, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("send after Close: %v", err)
	}
	// The other rank hears of it.
	if _, err := ws[1].Recv(ctx, 0, 0, nil); !errors.Is(err, ErrPeerLost) {
		t.Errorf("peer of a closed world: %v, want ErrPeerLost", err)
	}
}
