//go:build linux

package comm

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// spy wraps a shared-memory transport to count and steer pulls: noOffer
// hides the peers' ability to pull, fail makes every Pull fail, and gate,
// if set, holds each Pull until it is closed (after saying so on
// entered).
type spy struct {
	shmSignaller
	pulls   atomic.Int64
	noOffer atomic.Bool
	fail    atomic.Bool
	gate    chan struct{}
	entered chan struct{}
}

func (s *spy) PullableBy(peer int) bool { return !s.noOffer.Load() && s.Endpoint.PullableBy(peer) }

func (s *spy) Pull(peer int, addr uint64, dst []byte) error {
	s.pulls.Add(1)
	if s.gate != nil {
		s.entered <- struct{}{}
		<-s.gate
	}
	if s.fail.Load() {
		return errors.New("spy: injected pull failure")
	}
	return s.Endpoint.Pull(peer, addr, dst)
}

// spyWorlds returns n worlds over shared memory, each on a spy, once
// every rank can pull from every other.
func spyWorlds(t *testing.T, n int, cfg Config) ([]*World, []*spy) {
	t.Helper()
	spies := make([]*spy, n)
	ws := shmWorldsVia(t, n, cfg, func(i int, open opener) opener {
		return func(ev events) (transport, error) {
			t, err := open(ev)
			if err != nil {
				return nil, err
			}
			spies[i] = &spy{shmSignaller: t.(shmSignaller)}
			return spies[i], nil
		}
	})
	waitPullable(t, spies)
	handshake(t, ws)
	return ws, spies
}

// handshake has every rank receive a message from every other, the
// receive posted first. Then each transport's receive goroutine has met,
// through the matching table's lock, the test goroutine after New stored
// the world's transport: the race detector cannot see the ordering that
// the shared-memory rings give (their atomics are outside Go's heap).
func handshake(t *testing.T, ws []*World) {
	ctx := testCtx(t)
	for a := range ws {
		for b := range ws {
			if a == b {
				continue
			}
			r, err := ws[b].Irecv(a, 0, make([]byte, 1))
			if err == nil {
				err = ws[a].Send(ctx, b, 0, []byte{1})
			}
			if err == nil {
				_, err = r.Wait(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

func waitPullable(t *testing.T, spies []*spy) {
	deadline := time.Now().Add(5 * time.Second)
	for a := range spies {
		for b := range spies {
			for a != b && !spies[a].PullableBy(b) {
				if time.Now().After(deadline) {
					t.Fatalf("rank %d not pullable by rank %d", a, b)
				}
				time.Sleep(time.Millisecond)
			}
		}
	}
}

// pullCfg sends messages from 1 KiB up by rendezvous, in small pushed
// chunks when they fall back.
var pullCfg = Config{EagerLimit: 1 << 10, ChunkSize: 64 << 10}

// pullSizes are around the eager limit and the pull chunk.
func pullSizes() []int {
	return []int{1<<10 - 1, 1 << 10, 1<<10 + 1, 64<<10 + 7, 1<<20 + 3, pullChunk - 1, pullChunk + 1}
}

// sendRecv sends n bytes from ws[0] to ws[1] on tag into a buffer of
// room bytes, and returns both outcomes.
func sendRecv(ctx context.Context, ws []*World, tag, n, room int) (Status, []byte, error, error) {
	errc := make(chan error, 1)
	go func() { errc <- ws[0].Send(ctx, 1, tag, payload(0, tag, n)) }()
	buf := make([]byte, room)
	st, err := ws[1].Recv(ctx, 0, tag, buf)
	return st, buf, err, <-errc
}

// TestPullSizes: rendezvous messages are pulled, both ways, and arrive
// intact byte by byte; with pulls failing or not offered they still do,
// pushed through the ring.
func TestPullSizes(t *testing.T) {
	for _, mode := range []string{"pull", "fail", "nooffer"} {
		t.Run("mode="+mode, func(t *testing.T) {
			ws, spies := spyWorlds(t, 2, pullCfg)
			for _, s := range spies {
				s.fail.Store(mode == "fail")
				s.noOffer.Store(mode == "nooffer")
			}
			ctx := testCtx(t)
			for tag, n := range pullSizes() {
				st, buf, rerr, serr := sendRecv(ctx, ws, tag, n, n)
				if rerr != nil || serr != nil || st != (Status{Source: 0, Tag: tag, Len: n}) {
					t.Fatalf("%d bytes: recv %+v %v, send %v", n, st, rerr, serr)
				}
				if err := check(buf, 0, tag, n); err != nil {
					t.Fatalf("%d bytes: %v", n, err)
				}
			}
			got, want := spies[1].pulls.Load(), int64(len(pullSizes())-1)
			switch mode {
			case "pull":
				want++ // the one over pullChunk takes two pulls
			case "nooffer":
				want = 0
			}
			if got != want {
				t.Errorf("%d pulls, want %d", got, want)
			}
		})
	}
}

// TestPullTruncation: a short receive pulls what fits and fails with
// ErrTruncated; the send succeeds and the world goes on.
func TestPullTruncation(t *testing.T) {
	ws, _ := spyWorlds(t, 2, pullCfg)
	ctx := testCtx(t)
	for tag, n := range []int{5000, 1 << 20} {
		for _, room := range []int{0, 1000, n - 1} {
			st, buf, rerr, serr := sendRecv(ctx, ws, tag, n, room)
			if !errors.Is(rerr, ErrTruncated) || st.Len != n || serr != nil {
				t.Fatalf("%d bytes into %d: %+v %v, send %v; want ErrTruncated", n, room, st, rerr, serr)
			}
			if err := check(buf, 0, tag, room); err != nil && room > 0 {
				t.Fatalf("%d bytes into %d: prefix: %v", n, room, err)
			}
		}
	}
	if _, _, rerr, serr := sendRecv(ctx, ws, 99, 4096, 4096); rerr != nil || serr != nil {
		t.Fatalf("after truncations: recv %v, send %v", rerr, serr)
	}
}

// TestPullWithdrawUnmatched: a send withdrawn before any receive matched
// its offer returns the context's error; the receive that matches the
// offer later fails with ErrAborted and nothing is pulled.
func TestPullWithdrawUnmatched(t *testing.T) {
	ws, spies := spyWorlds(t, 2, pullCfg)
	r, err := ws[0].Isend(1, 5, payload(0, 5, 100_000))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Wait(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("withdrawn send = %v, want context.Canceled", err)
	}
	if _, err := ws[1].Recv(testCtx(t), 0, 5, make([]byte, 100_000)); !errors.Is(err, ErrAborted) {
		t.Fatalf("receive of a revoked offer = %v, want ErrAborted", err)
	}
	if n := spies[1].pulls.Load(); n != 0 {
		t.Errorf("%d pulls of a revoked offer", n)
	}
}

// TestPullWithdrawDuringPull: a sender that gives up while its buffer is
// being pulled waits for the pull to end, and so does a receiver; the
// message is delivered.
func TestPullWithdrawDuringPull(t *testing.T) {
	for _, side := range []string{"send", "recv"} {
		t.Run("side="+side, func(t *testing.T) {
			ws, spies := spyWorlds(t, 2, pullCfg)
			spies[1].gate, spies[1].entered = make(chan struct{}), make(chan struct{}, 1)
			ctx, cancel := context.WithCancel(testCtx(t))
			sctx, rctx := testCtx(t), testCtx(t)
			if side == "send" {
				sctx = ctx
			} else {
				rctx = ctx
			}
			const n = 300_000
			buf := make([]byte, n)
			rr, err := ws[1].Irecv(0, 3, buf) // first, so the pull runs apart
			if err != nil {
				t.Fatal(err)
			}
			sr, err := ws[0].Isend(1, 3, payload(0, 3, n))
			if err != nil {
				t.Fatal(err)
			}
			<-spies[1].entered
			results := make(chan error, 2)
			go func() { _, err := sr.Wait(sctx); results <- err }()
			go func() { _, err := rr.Wait(rctx); results <- err }()
			cancel()
			select {
			case err := <-results:
				t.Fatalf("a Wait returned (%v) while the buffer was being read", err)
			case <-time.After(50 * time.Millisecond):
			}
			close(spies[1].gate)
			for range 2 {
				if err := <-results; err != nil {
					t.Errorf("Wait after the pull = %v", err)
				}
			}
			if err := check(buf, 0, 3, n); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestPullPeerLost: a sender whose receiver closes while the sender waits
// for the FIN, and a receiver whose sender closes while it pulls, fail
// with ErrPeerLost (or the receiver's fallback does), never hang.
func TestPullPeerLost(t *testing.T) {
	t.Run("receiver closes", func(t *testing.T) {
		ws, spies := spyWorlds(t, 2, pullCfg)
		spies[1].gate, spies[1].entered = make(chan struct{}), make(chan struct{}, 1)
		sr, err := ws[0].Isend(1, 4, payload(0, 4, 50_000))
		if err != nil {
			t.Fatal(err)
		}
		go ws[1].Recv(context.Background(), 0, 4, make([]byte, 50_000))
		<-spies[1].entered
		go func() { time.Sleep(20 * time.Millisecond); close(spies[1].gate) }()
		ws[1].Close()
		if _, err := sr.Wait(testCtx(t)); !errors.Is(err, ErrPeerLost) {
			t.Fatalf("send to a closed receiver = %v, want ErrPeerLost", err)
		}
	})
	t.Run("sender closes", func(t *testing.T) {
		ws, spies := spyWorlds(t, 2, pullCfg)
		spies[1].gate, spies[1].entered = make(chan struct{}), make(chan struct{}, 1)
		if _, err := ws[0].Isend(1, 4, payload(0, 4, 50_000)); err != nil {
			t.Fatal(err)
		}
		errc := make(chan error, 1)
		go func() { _, err := ws[1].Recv(testCtx(t), 0, 4, make([]byte, 50_000)); errc <- err }()
		<-spies[1].entered
		ws[0].Close()
		close(spies[1].gate)
		if err := <-errc; !errors.Is(err, ErrPeerLost) {
			t.Fatalf("pull from a closed sender = %v, want ErrPeerLost", err)
		}
	})
}

// TestPullMany: many goroutines exchange rendezvous messages both ways at
// once; each arrives intact and the pulls were used.
func TestPullMany(t *testing.T) {
	ws, spies := spyWorlds(t, 2, pullCfg)
	ctx := testCtx(t)
	per := 40
	if testing.Short() {
		per = 10
	}
	errc := make(chan error, 16)
	for g := range 4 {
		for from := range 2 {
			to := 1 - from
			go func() {
				for i := range per {
					if err := ws[from].Send(ctx, to, g, payload(from, g*1000+i, 2000+i*997)); err != nil {
						errc <- err
						return
					}
				}
				errc <- nil
			}()
			go func() {
				buf := make([]byte, 2000+per*997)
				for i := range per {
					st, err := ws[to].Recv(ctx, from, g, buf)
					if err == nil {
						err = check(buf[:st.Len], from, g*1000+i, 2000+i*997)
					}
					if err != nil {
						errc <- fmt.Errorf("rank %d from %d: %w", to, from, err)
						return
					}
				}
				errc <- nil
			}()
		}
	}
	for range 16 {
		if err := <-errc; err != nil {
			t.Fatal(err)
		}
	}
	if spies[0].pulls.Load() == 0 || spies[1].pulls.Load() == 0 {
		t.Errorf("pulls %d and %d, want both used", spies[0].pulls.Load(), spies[1].pulls.Load())
	}
}

// TestPullLimit: towards a peer that can pull, messages from PullLimit on
// are pulled even below EagerLimit; shorter ones go eagerly.
func TestPullLimit(t *testing.T) {
	ws, spies := spyWorlds(t, 2, Config{EagerLimit: 16 << 10, PullLimit: 4 << 10})
	ctx := testCtx(t)
	for tag, n := range []int{4<<10 - 1, 4 << 10, 16<<10 - 1} {
		before := spies[1].pulls.Load()
		st, buf, rerr, serr := sendRecv(ctx, ws, tag+1, n, n)
		if rerr != nil || serr != nil || st.Len != n {
			t.Fatalf("%d bytes: %+v %v %v", n, st, rerr, serr)
		}
		if err := check(buf, 0, tag+1, n); err != nil {
			t.Fatal(err)
		}
		if pulled, want := spies[1].pulls.Load()-before, int64(min(1, tag)); pulled != want {
			t.Errorf("%d bytes: %d pulls, want %d", n, pulled, want)
		}
	}
}
