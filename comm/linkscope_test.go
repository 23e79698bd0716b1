package comm

import (
	"sync/atomic"
	"testing"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// scopeMux returns a mux, not opened yet, for rank 0 of three, rank 1 on
// its host and rank 2 on another, over twins whose transports count their
// polls.
func scopeMux() (m *mux, remote, local *atomic.Int32) {
	remote, local = new(atomic.Int32), new(atomic.Int32)
	tw, lt := newTwin(3), newTwin(2)
	m = newMux(muxConfig{Rank: 0, Size: 3,
		Remote: func(ev events) (transport, error) {
			tr, err := tw.Opener(0)(ev)
			return pollCounting{tr, remote}, err
		},
		Local: func(rank, size int) opener {
			return func(ev events) (transport, error) {
				tr, err := lt.Opener(rank)(ev)
				return pollCounting{tr, local}, err
			}
		}})
	return m, remote, local
}

// routeScoped opens m, unless open says it is, and routes it: ranks 0 and 1 on
// host a, rank 2 on host b.
func routeScoped(t *testing.T, m *mux, open bool) {
	t.Helper()
	if !open {
		if _, err := m.Open(events{Deliver: func(int, frame.Header, []byte) {}, Lost: func(int, error) {}}); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close() })
	}
	if err := m.Route([]string{"a", "a", "b"}); err != nil {
		t.Fatal(err)
	}
}

// TestMuxScopes: a routed mux names the transport that reaches each peer
// and polls only the transports of the scope asked for; before the
// routes are known every peer's scope is ScopeAll.
func TestMuxScopes(t *testing.T) {
	m, remote, local := scopeMux()
	if s := m.ScopeOf(1); s != ScopeAll {
		t.Errorf("unrouted: scope of rank 1 %d, want ScopeAll", s)
	}
	routeScoped(t, m, false)
	if s1, s2 := m.ScopeOf(1), m.ScopeOf(2); s1 != ScopeLocal || s2 != ScopeRemote {
		t.Errorf("scopes of ranks 1, 2: %d, %d; want local %d, remote %d", s1, s2, ScopeLocal, ScopeRemote)
	}
	for _, c := range []struct {
		scope       uint
		remote, loc int32
	}{{ScopeLocal, 0, 1}, {ScopeRemote, 1, 0}, {ScopeAll, 1, 1}} {
		remote.Store(0)
		local.Store(0)
		m.PollScope(c.scope, nil)
		if remote.Load() != c.remote || local.Load() != c.loc {
			t.Errorf("PollScope(%d): remote polled %d, local %d times; want %d, %d",
				c.scope, remote.Load(), local.Load(), c.remote, c.loc)
		}
	}
}

// TestProgressInPollsTheOthersNow: a link's ProgressIn of the local scope
// leaves the remote transport alone but for every fullPollEvery-th call,
// so that frames from other hosts are still read in a world that reads
// only in polls.
func TestProgressInPollsTheOthersNow(t *testing.T) {
	m, remote, local := scopeMux()
	w, err := openWorld(Config{Rank: 0, Size: 3}, m.Open)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	routeScoped(t, m, true)
	l, err := w.Link(1, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s := l.ProgressScope(); s != ScopeLocal {
		t.Fatalf("link to rank 1: scope %d, want ScopeLocal", s)
	}
	remote.Store(0)
	local.Store(0)
	const calls = 4 * fullPollEvery
	for range calls {
		if _, ok := l.ProgressIn(ScopeLocal); !ok {
			t.Fatal("ProgressIn not ok with no other poller")
		}
	}
	if got := remote.Load(); got != calls/fullPollEvery {
		t.Errorf("remote transport polled %d times in %d local progresses, want %d", got, calls, calls/fullPollEvery)
	}
	if got := local.Load(); got != calls {
		t.Errorf("local transport polled %d times in %d local progresses, want %d", got, calls, calls)
	}
}
