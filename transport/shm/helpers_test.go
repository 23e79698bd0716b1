//go:build linux

package shm

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/internal/logtest"
	"github.com/plexus-hpc/plexus/transport/frame"
)

func TestMain(m *testing.M) {
	if mode := os.Getenv(childEnv); mode != "" {
		os.Exit(runChild(mode))
	}
	os.Exit(m.Run())
}

// shmDir returns a fresh directory on /dev/shm (tmpfs, as in production),
// removed when the test ends.
func shmDir(t testing.TB) string {
	dir, err := os.MkdirTemp(DefaultDir, "plexus-test-")
	if err != nil {
		t.Skipf("no %s: %v", DefaultDir, err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// delivered is one delivered frame, copied.
type delivered struct {
	peer    int
	h       frame.Header
	payload []byte
}

// sink collects what an Endpoint delivers and loses.
type sink struct {
	mu     sync.Mutex
	frames []delivered
	notify chan struct{}
	lost   chan error
	hook   atomic.Pointer[func(int, frame.Header, []byte)] // if set, replaces collecting
}

func newSink() *sink {
	return &sink{notify: make(chan struct{}, 1), lost: make(chan error, 64)}
}

func (s *sink) deliver(peer int, h frame.Header, p []byte) {
	if f := s.hook.Load(); f != nil {
		(*f)(peer, h, p)
		return
	}
	s.collect(peer, h, p)
}

// collect keeps a copy of the frame, hook or not.
func (s *sink) collect(peer int, h frame.Header, p []byte) {
	s.mu.Lock()
	s.frames = append(s.frames, delivered{peer, h, bytes.Clone(p)})
	s.mu.Unlock()
	select {
	case s.notify <- struct{}{}:
	default:
	}
}

func (s *sink) lose(peer int, err error) { s.lost <- err }

// wait returns the frames once there are n of them, or fails after d.
func (s *sink) wait(t testing.TB, n int, d time.Duration) []delivered {
	t.Helper()
	deadline := time.After(d)
	for {
		s.mu.Lock()
		got := len(s.frames)
		s.mu.Unlock()
		if got >= n {
			s.mu.Lock()
			defer s.mu.Unlock()
			return s.frames
		}
		select {
		case <-s.notify:
		case <-deadline:
			t.Fatalf("%d of %d frames after %v", got, n, d)
		}
	}
}

// openN opens n endpoints of one job in dir, each with its own sink.
func openN(t testing.TB, dir string, n int, tweak func(*Config)) ([]*Endpoint, []*sink) {
	t.Helper()
	eps, sinks := make([]*Endpoint, n), make([]*sink, n)
	for r := range n {
		sinks[r] = newSink()
		cfg := Config{Rank: r, Size: n, JobID: "test-job", Dir: dir,
			Deliver: sinks[r].deliver, Lost: sinks[r].lose, Logger: logtest.New(t)}
		if tweak != nil {
			tweak(&cfg)
		}
		ep, err := Open(cfg)
		if err != nil {
			t.Fatalf("Open rank %d: %v", r, err)
		}
		eps[r] = ep
		t.Cleanup(func() { ep.Close() })
	}
	return eps, sinks
}

// payloadFor is the payload of message seq on stream tag, of size bytes.
func payloadFor(tag int, seq uint64, size int) []byte {
	p := make([]byte, size)
	for i := range p {
		p[i] = byte(tag*31) ^ byte(seq) ^ byte(i*7)
	}
	return p
}

// checkStreams demands that frames hold, for every (peer, tag), messages
// 0..count-1 exactly once and in order, with their payloads intact.
func checkStreams(t *testing.T, frames []delivered, size func(uint64) int) {
	t.Helper()
	next := map[[2]int]uint64{}
	for _, f := range frames {
		k := [2]int{f.peer, int(f.h.Tag)}
		if f.h.Seq != next[k] || int(f.h.Source) != f.peer {
			t.Fatalf("from rank %d tag %d: seq %d (source %d), want %d", f.peer, f.h.Tag, f.h.Seq, f.h.Source, next[k])
		}
		if want := payloadFor(int(f.h.Tag), f.h.Seq, size(f.h.Seq)); !bytes.Equal(f.payload, want) {
			t.Fatalf("from rank %d tag %d seq %d: payload of %d bytes differs (want %d)", f.peer, f.h.Tag, f.h.Seq, len(f.payload), len(want))
		}
		next[k]++
	}
}

// sendStream sends count messages on stream tag from ep to peer.
func sendStream(ep *Endpoint, peer, tag, count int, size func(uint64) int) error {
	for seq := range uint64(count) {
		h := frame.Header{Kind: frame.Eager, Tag: int32(tag), Seq: seq}
		if err := ep.Send(context.Background(), peer, h, payloadFor(tag, seq, size(seq))); err != nil {
			return fmt.Errorf("send %d/%d: %w", tag, seq, err)
		}
	}
	return nil
}
