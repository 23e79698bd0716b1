package tcp

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// TestReachUnconnected: Reach connects to a live peer that nothing was
// exchanged with, and reports one whose port refuses (its Endpoint is
// gone) lost within a second, once.
func TestReachUnconnected(t *testing.T) {
	rec := newLostRec()
	eps, _ := job(t, 3, func(c *Config) {
		if c.Rank == 0 {
			c.Lost = rec.lost
		}
		c.Logger = slog.New(slog.DiscardHandler)
	})
	eps[2].Close()
	start := time.Now()
	for _, r := range []int{1, 2, 2} {
		if !eps[0].Reach(r) {
			t.Fatalf("Reach(%d) reported false", r)
		}
	}
	err := waitLost(t, rec, 2, 2*time.Second)
	if !errors.Is(err, ErrPeerLost) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("lost error %v, want ErrPeerLost for a refused dial", err)
	}
	t.Logf("lost after %v: %v", time.Since(start).Round(time.Millisecond), err)
	if err := eps[0].Send(context.Background(), 2, frame.Header{Kind: frame.Eager}, nil); !errors.Is(err, ErrPeerLost) {
		t.Errorf("Send to the unreachable rank: %v, want ErrPeerLost", err)
	}
	if eps[0].peers[1].c.Load() == nil {
		t.Error("Reach did not connect to the live rank")
	}
	select {
	case p := <-rec.ch:
		t.Errorf("rank %d reported lost after rank 2", p)
	case <-time.After(3 * reachRefused):
	}
}

func TestReachFailed(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	for _, c := range []struct {
		name              string
		now, refusedSince time.Time
		want              bool
	}{
		{"first refusal", at(0), at(0), false},
		{"refusing briefly", at(reachRefused / 2), at(0), false},
		{"refusing long enough", at(reachRefused), at(0), true},
		{"other errors within the budget", at(time.Second), time.Time{}, false},
		{"other errors past the budget", at(2 * time.Second), time.Time{}, true},
		{"refusing since late", at(time.Second + reachRefused/2), at(time.Second), false},
	} {
		if got := reachFailed(c.now, t0, c.refusedSince, 2*time.Second); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
