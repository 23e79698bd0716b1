package coll

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"
)

// fakeProgresser counts calls; it can progress when ok is set.
type fakeProgresser struct {
	ok          bool
	calls, done atomic.Int64
}

func (f *fakeProgresser) Progress() (bool, bool) {
	f.calls.Add(1)
	return false, f.ok
}

func (f *fakeProgresser) ProgressDone() { f.done.Add(1) }

// TestSpinnerProgressesThenNaps checks the policy: a wait progresses for
// progressFor, says ProgressDone once, and from then on only naps.
func TestSpinnerProgressesThenNaps(t *testing.T) {
	f := &fakeProgresser{ok: true}
	bell := make(chan struct{}, 1)
	s := spinner{bell: bell, prog: f}
	start := time.Now()
	for s.prog != nil {
		s.idle()
	}
	if d := time.Since(start); d < progressFor {
		t.Errorf("progressed for %v, want at least %v", d, progressFor)
	}
	calls := f.calls.Load()
	if calls == 0 || f.done.Load() != 1 {
		t.Fatalf("%d Progress and %d ProgressDone calls, want some and 1", calls, f.done.Load())
	}
	bell <- struct{}{}
	s.idle()
	if f.calls.Load() != calls || f.done.Load() != 1 {
		t.Errorf("a wait that napped progressed again")
	}
}

// TestSpinnerCannotProgress checks that a wait whose transport cannot be
// progressed falls back at once and tells the transport nothing.
func TestSpinnerCannotProgress(t *testing.T) {
	f := &fakeProgresser{}
	s := spinner{bell: make(chan struct{}, 1), prog: f}
	s.idle()
	if s.prog != nil || f.calls.Load() != 1 || f.done.Load() != 0 {
		t.Errorf("prog %v, %d Progress and %d ProgressDone calls, want nil, 1 and 0",
			s.prog, f.calls.Load(), f.done.Load())
	}
}

// progressTwin is a twin link whose member progresses it, as ranks'
// members progress comm's links.
type progressTwin struct {
	*twinLink
	calls *atomic.Int64
}

func (p progressTwin) Progress() (bool, bool) {
	p.calls.Add(1)
	return false, true
}

func (p progressTwin) ProgressDone() {}

// TestRemoteMembersProgress runs every collective on members whose links
// are Progressers: the members progress them, and the results stay right.
func TestRemoteMembersProgress(t *testing.T) {
	for _, n := range sizes() {
		t.Run(fmt.Sprintf("members=%d", n), func(t *testing.T) {
			bc := buildTree(t, n, topologies[0])
			ds := twinDialers(bc.Members())
			var calls atomic.Int64
			var ms []*Member
			for _, id := range bc.Members() {
				dial := func(peer int, lane Lane) (Link, error) {
					l, err := ds[id](peer, lane)
					return progressTwin{l.(*twinLink), &calls}, err
				}
				m, err := NewMember(Config{Broadcast: bc}, id, dial)
				if err != nil {
					t.Fatal(err)
				}
				ms = append(ms, m)
			}
			if err := runEach(t, ms, func(ctx context.Context, m *Member) error {
				return allOps(ctx, m, bc.Members())
			}); err != nil {
				t.Fatal(err)
			}
			if n > 1 && calls.Load() == 0 {
				t.Error("no member progressed its links")
			}
		})
	}
}
