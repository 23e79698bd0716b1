//go:build linux

package comm

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
	"github.com/plexus-hpc/plexus/transport/shm"
	"github.com/plexus-hpc/plexus/transport/tcp"
)

// counted wraps a transport and counts the frames it sends and delivers,
// by world rank of the peer: the stats the routing tests check.
type counted struct {
	transport
	ranks     []int // local number → world rank; nil for the identity
	sent, got []atomic.Int64
}

func (c *counted) rank(peer int) int {
	if c.ranks == nil {
		return peer
	}
	return c.ranks[peer]
}

func (c *counted) Send(ctx context.Context, peer int, h frame.Header, payload []byte) error {
	c.sent[c.rank(peer)].Add(1)
	return c.transport.Send(ctx, peer, h, payload)
}

// count returns an opener of open's transport whose traffic c counts.
func count(open opener, c *counted) opener {
	return func(ev events) (transport, error) {
		inner := ev.Deliver
		ev.Deliver = func(peer int, h frame.Header, p []byte) {
			c.got[c.rank(peer)].Add(1)
			inner(peer, h, p)
		}
		t, err := open(ev)
		c.transport = t
		return c, err
	}
}

// muxWorld is one world of muxWorlds and its transports' counters.
type muxWorld struct {
	w             *World
	local, remote *counted
}

// muxWorlds returns worlds over Muxes in this process, rank r on the
// pretend host hosts[r]: shared memory (one segment per host, in a fresh
// directory) between ranks with the same name, TCP loopback otherwise.
func muxWorlds(t *testing.T, hosts []string) []muxWorld {
	t.Helper()
	dir, err := os.MkdirTemp(shm.DefaultDir, "plexus-mux-test-")
	if err != nil {
		t.Skip(err)
	}
	n := len(hosts)
	b := &book{ready: make(chan struct{}), addrs: make([]string, n)}
	ms := make([]muxWorld, n)
	for i := range ms {
		ms[i] = muxWorld{local: &counted{sent: make([]atomic.Int64, n), got: make([]atomic.Int64, n)},
			remote: &counted{sent: make([]atomic.Int64, n), got: make([]atomic.Int64, n)}}
		ms[i].w = newMuxWorld(t, i, hosts, b, dir, ms[i])
	}
	close(b.ready)
	t.Cleanup(func() {
		for _, m := range ms {
			m.w.Close()
		}
		os.RemoveAll(dir)
	})
	return ms
}

func newMuxWorld(t *testing.T, i int, hosts []string, b *book, dir string, mw muxWorld) *World {
	n := len(hosts)
	tc := tcp.Config{Rank: i, Size: n, JobID: "mux-test", Secret: []byte("0123456789abcdef-test"),
		Addrs: b.addr, Logger: slog.New(slog.DiscardHandler)}
	local := func(rank, size int) opener {
		mw.local.ranks = sameHost(hosts, i).ranks
		sc := shm.Config{Rank: rank, Size: size, JobID: "mux-test-" + hosts[i], Dir: dir}
		return count(openSHM(sc), mw.local)
	}
	remote := count(openTCP(tc, func(e *tcp.Endpoint) { b.addrs[i] = e.Addr() }), mw.remote)
	m := newMux(muxConfig{Rank: i, Size: n, Remote: remote, Local: local})
	w, err := openWorld(Config{Rank: i, Size: n, EagerLimit: 1024, ChunkSize: 4096}, m.Open)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Route(hosts); err != nil {
		t.Fatal(err)
	}
	return w
}

// TestMuxRoutes sends between every pair of three ranks, 0 and 1 on one
// host and 2 on another, eager and rendezvous messages on one tag: each
// arrives exactly once and in order, and each pair's frames took the
// expected transport, both ways.
func TestMuxRoutes(t *testing.T) {
	ms := muxWorlds(t, []string{"a", "a", "b"})
	per := 200
	if testing.Short() {
		per = 50
	}
	ctx := testCtx(t)
	size := func(i int) int { return (i * 131) % 5000 } // eager below 1 KiB, else rendezvous
	var wg sync.WaitGroup
	errs := make(chan error, 2*9)
	for src := range ms {
		for dst := range ms {
			if src == dst {
				continue
			}
			wg.Add(2)
			go func() {
				defer wg.Done()
				for i := range per {
					if err := ms[src].w.Send(ctx, dst, 7, payload(src, i, size(i))); err != nil {
						errs <- err
						return
					}
				}
			}()
			go func() {
				defer wg.Done()
				errs <- recvInOrder(ctx, ms[dst].w, src, per, size)
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	checkRoutes(t, ms, func(a, b int) bool { return a < 2 && b < 2 })
}

// recvInOrder receives n messages from src on tag 7 and checks that the
// i-th is the i-th sent.
func recvInOrder(ctx context.Context, w *World, src, n int, size func(int) int) error {
	buf := make([]byte, 8192)
	for i := range n {
		st, err := w.Recv(ctx, src, 7, buf)
		if err != nil {
			return err
		}
		if err := check(buf[:st.Len], src, i, size(i)); err != nil {
			return fmt.Errorf("rank %d, message %d: %w", w.Rank(), i, err)
		}
	}
	return nil
}

// checkRoutes demands that every pair's frames went over shared memory if
// local(a, b) and over TCP otherwise, and none over the other.
func checkRoutes(t *testing.T, ms []muxWorld, local func(a, b int) bool) {
	t.Helper()
	for a := range ms {
		for b := range ms {
			if a == b {
				continue
			}
			on, off := ms[a].remote, ms[a].local
			if local(a, b) {
				on, off = off, on
			}
			if on.sent[b].Load() == 0 || on.got[b].Load() == 0 || off.sent[b].Load() != 0 || off.got[b].Load() != 0 {
				t.Errorf("rank %d with rank %d: local sent %d got %d, remote sent %d got %d", a, b,
					ms[a].local.sent[b].Load(), ms[a].local.got[b].Load(), ms[a].remote.sent[b].Load(), ms[a].remote.got[b].Load())
			}
		}
	}
}

// TestMuxLost closes rank 1 (same host as 0) and rank 2 (another host):
// rank 0's receives from each fail with ErrPeerLost, over either
// transport. A message first opens the connection (TCP notices a loss on
// a connection) and the ring.
func TestMuxLost(t *testing.T) {
	ms := muxWorlds(t, []string{"a", "a", "b"})
	ctx := testCtx(t)
	for _, peer := range []int{1, 2} {
		exchangeOnce(t, ctx, ms[0].w, ms[peer].w)
		done := make(chan error, 1)
		go func() {
			_, err := ms[0].w.Recv(ctx, peer, 1, make([]byte, 8))
			done <- err
		}()
		time.Sleep(10 * time.Millisecond)
		ms[peer].w.Close()
		if err := <-done; !errors.Is(err, ErrPeerLost) {
			t.Errorf("receive from closed rank %d: %v, want ErrPeerLost", peer, err)
		}
		if err := ms[0].w.Send(ctx, peer, 1, []byte("x")); !errors.Is(err, ErrPeerLost) {
			t.Errorf("send to closed rank %d: %v, want ErrPeerLost", peer, err)
		}
	}
}

// TestMuxAllRemote puts every rank on its own host: nothing goes over
// shared memory.
func TestMuxAllRemote(t *testing.T) {
	ms := muxWorlds(t, []string{"a", "b", "c"})
	ctx := testCtx(t)
	for src := range ms {
		for dst := range ms {
			if src != dst {
				exchangeOnce(t, ctx, ms[src].w, ms[dst].w)
			}
		}
	}
	checkRoutes(t, ms, func(a, b int) bool { return false })
}

// exchangeOnce sends a message from a to b and back.
func exchangeOnce(t *testing.T, ctx context.Context, a, b *World) {
	t.Helper()
	go a.Send(ctx, b.Rank(), 3, []byte("ping"))
	buf := make([]byte, 8)
	if _, err := b.Recv(ctx, a.Rank(), 3, buf); err != nil {
		t.Fatal(err)
	}
	go b.Send(ctx, a.Rank(), 4, []byte("pong"))
	if _, err := a.Recv(ctx, b.Rank(), 4, buf); err != nil {
		t.Fatal(err)
	}
}

// TestMuxSendWaitsForRoute: a Send before Route waits for it, and one
// after Close fails.
func TestMuxSendWaitsForRoute(t *testing.T) {
	tw := newTwin(2)
	m := newMux(muxConfig{Rank: 0, Size: 2, Remote: tw.Opener(0), RouteTimeout: 20 * time.Millisecond})
	if _, err := m.Open(events{Deliver: func(int, frame.Header, []byte) {}, Lost: func(int, error) {}}); err != nil {
		t.Fatal(err)
	}
	if err := m.Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, nil); !errors.Is(err, errNoRoutes) {
		t.Errorf("send before Route: %v, want errNoRoutes", err)
	}
	m.Close()
	if err := m.Route([]string{"a", "a"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Route after Close: %v, want ErrClosed", err)
	}
	if err := m.Send(context.Background(), 1, frame.Header{Kind: frame.Eager}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("send after Close: %v, want ErrClosed", err)
	}
}
