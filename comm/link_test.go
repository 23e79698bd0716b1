package comm

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"
)

// linkPair returns the two ends of channel ch between ranks 0 and 1.
func linkPair(t testing.TB, ws []*World, ch int) (*Link, *Link) {
	t.Helper()
	a, err := ws[0].Link(1, ch)
	if err != nil {
		t.Fatal(err)
	}
	b, err := ws[1].Link(0, ch)
	if err != nil {
		t.Fatal(err)
	}
	return a, b
}

// TestLinkOrderAndWindow streams more than a window's worth of messages
// one way and checks every one arrives once, in order.
func TestLinkOrderAndWindow(t *testing.T) {
	eachTransport(t, func(t *testing.T, mk func(t testing.TB, n int, cfg Config) fixture) {
		ws := mk(t, 2, Config{}).ws
		ctx := testCtx(t)
		a, b := linkPair(t, ws, 3)
		const n, size = 200, 20000 // about 4 windows
		errc := make(chan error, 1)
		go func() {
			for i := range n {
				if err := a.Send(ctx, payload(0, i, size)); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
		buf := make([]byte, size)
		for i := range n {
			k, err := b.Recv(ctx, buf)
			if err != nil {
				t.Fatal(err)
			}
			if err := check(buf[:k], 0, i, size); err != nil {
				t.Fatal(err)
			}
		}
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	})
}

// TestLinkApartFromUserTraffic checks that a wildcard user receive never
// takes a link message, and a link never gets a user message.
func TestLinkApartFromUserTraffic(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{})
	ctx := testCtx(t)
	a, b := linkPair(t, ws, 0)
	if err := a.Send(ctx, []byte("link")); err != nil {
		t.Fatal(err)
	}
	if err := ws[0].Send(ctx, 1, 0, []byte("user")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 16)
	st, err := ws[1].Recv(ctx, AnySource, AnyTag, buf)
	if err != nil || string(buf[:st.Len]) != "user" {
		t.Fatalf("user receive: %q, %v", buf[:st.Len], err)
	}
	n, err := b.Recv(ctx, buf)
	if err != nil || string(buf[:n]) != "link" {
		t.Fatalf("link receive: %q, %v", buf[:n], err)
	}
	if _, ok := ws[1].Iprobe(AnySource, AnyTag); ok {
		t.Fatal("a probe sees link traffic")
	}
}

// TestLinkTryRecvEmpty checks that TryRecv returns at once.
func TestLinkTryRecvEmpty(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{})
	_, b := linkPair(t, ws, 1)
	if n, ok, err := b.TryRecv(make([]byte, 4)); ok || err != nil || n != 0 {
		t.Fatalf("TryRecv on an empty link: %d %v %v", n, ok, err)
	}
}

// TestLinkTruncated checks that a short buffer gives ErrTruncated and the
// link goes on.
func TestLinkTruncated(t *testing.T) {
	ws, _ := twinWorlds(t, 2, Config{})
	ctx := testCtx(t)
	a, b := linkPair(t, ws, 1)
	a.Send(ctx, []byte("too long"))
	a.Send(ctx, []byte("ok"))
	if _, err := b.Recv(ctx, make([]byte, 3)); !errors.Is(err, ErrTruncated) {
		t.Fatalf("got %v, want ErrTruncated", err)
	}
	buf := make([]byte, 8)
	if n, err := b.Recv(ctx, buf); err != nil || string(buf[:n]) != "ok" {
		t.Fatalf("after truncation: %q, %v", buf[:n], err)
	}
}

// TestLinkPeerLost checks that a waiting receive and a sender out of
// window both fail soon after the peer dies, and that messages sent
// before the death are still received.
func TestLinkPeerLost(t *testing.T) {
	eachTransport(t, func(t *testing.T, mk func(t testing.TB, n int, cfg Config) fixture) {
		f := mk(t, 2, Config{})
		ctx := testCtx(t)
		a, b := linkPair(t, f.ws, 2)
		if err := a.Send(ctx, []byte("last")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 8)
		if n, err := b.Recv(ctx, buf); err != nil || string(buf[:n]) != "last" {
			t.Fatalf("%q, %v", buf[:n], err)
		}
		done := make(chan error, 1)
		go func() { _, err := b.Recv(ctx, buf); done <- err }()
		time.Sleep(10 * time.Millisecond)
		f.kill(0)
		select {
		case err := <-done:
			if !errors.Is(err, ErrPeerLost) {
				t.Fatalf("got %v, want ErrPeerLost", err)
			}
		case <-time.After(5 * time.Second):
			t.Fatal("receive still waiting 5 s after the peer died")
		}
	})
}

// TestLinkAbort checks that AbortLinks fails the waiting links of other
// ranks on the channel, and only on that channel.
func TestLinkAbort(t *testing.T) {
	ws, _ := twinWorlds(t, 3, Config{})
	ctx := testCtx(t)
	waiting, err := ws[2].Link(1, 5) // rank 2 waits for rank 1, which is fine
	if err != nil {
		t.Fatal(err)
	}
	other, _ := ws[2].Link(1, 6)
	done := make(chan error, 1)
	go func() { _, err := waiting.Recv(ctx, nil); done <- err }()
	ws[0].AbortLinks(5, fmt.Errorf("test failure"))
	if err := <-done; !errors.Is(err, ErrLinkAborted) {
		t.Fatalf("got %v, want ErrLinkAborted", err)
	}
	if _, ok, err := other.TryRecv(nil); ok || err != nil {
		t.Fatalf("channel 6 affected: %v %v", ok, err)
	}
}

// TestLinkReserve checks that channels are handed out in order and run out.
func TestLinkReserve(t *testing.T) {
	ws, _ := twinWorlds(t, 1, Config{})
	a, _ := ws[0].ReserveChannels(3)
	b, _ := ws[0].ReserveChannels(2)
	if a != 0 || b != 3 {
		t.Fatalf("reserved %d then %d, want 0 then 3", a, b)
	}
	if _, err := ws[0].ReserveChannels(LinkChannels); err == nil {
		t.Fatal("reserved more channels than there are")
	}
	if _, err := ws[0].Link(0, 0); !errors.Is(err, ErrBadRank) {
		t.Fatalf("link to self: %v", err)
	}
	ws[0].Close()
	if _, err := ws[0].ReserveChannels(1); !errors.Is(err, ErrClosed) {
		t.Fatalf("reserve on a closed world: %v, want ErrClosed", err)
	}
}

// BenchmarkLinkPingPong measures a round trip on a link.
func BenchmarkLinkPingPong(b *testing.B) {
	for _, name := range []string{"twin", "tcp"} {
		b.Run("transport="+name, func(b *testing.B) {
			ws := makers[name](b, 2, Config{}).ws
			x, y := linkPair(b, ws, 0)
			ctx := context.Background()
			go func() {
				buf := make([]byte, 8)
				for {
					n, err := y.Recv(ctx, buf)
					if err != nil || y.Send(ctx, buf[:n]) != nil {
						return
					}
				}
			}()
			buf := make([]byte, 8)
			b.ReportAllocs()
			for b.Loop() {
				x.Send(ctx, buf)
				x.Recv(ctx, buf)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/2, "ns/one-way")
		})
	}
}
