package multirail

import (
	"errors"
	"net"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

func linear(t testing.TB, lat time.Duration, bw float64) rail.Profile {
	t.Helper()
	var s []rail.Sample
	for n := 4; n <= 8<<20; n *= 2 {
		s = append(s, rail.Sample{Size: n, Time: lat + time.Duration(float64(n)/bw*1e9)})
	}
	p, err := rail.NewProfile("r", s)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestPlanStrategies checks each split against shares computed by hand
// for a 1 Gbit and a 500 Mbit rail: iso halves, weighted and plexus two
// thirds on the fast rail, single all of it; a down rail takes nothing;
// every plan covers the message exactly.
func TestPlanStrategies(t *testing.T) {
	fast, slow := linear(t, time.Microsecond, 125e6), linear(t, time.Microsecond, 62.5e6)
	rails := []rail.Rail{{Profile: slow}, {Profile: fast}}
	const n = 3 << 20
	for _, c := range []struct {
		s    Split
		fast float64
	}{{SplitIso, 0.5}, {SplitWeighted, 2.0 / 3}, {SplitPlexus, 2.0 / 3}, {SplitSingle, 1}} {
		chunks := plan(c.s, rails, n, rail.Config{})
		off, onFast := 0, 0
		for _, ch := range chunks {
			if ch.Offset != off {
				t.Fatalf("split %d: chunks %+v out of order", c.s, chunks)
			}
			off += ch.Len
			if ch.Rail == 1 {
				onFast += ch.Len
			}
		}
		if off != n {
			t.Fatalf("split %d: chunks %+v cover %d bytes of %d", c.s, chunks, off, n)
		}
		if got := float64(onFast) / n; got < c.fast-0.002 || got > c.fast+0.002 {
			t.Errorf("split %d: fast rail carries %.4f, want %.4f", c.s, got, c.fast)
		}
	}
	down := []rail.Rail{{Profile: fast}, {Profile: fast, Down: true}}
	for _, s := range []Split{SplitIso, SplitWeighted, SplitPlexus, SplitSingle} {
		chunks := plan(s, down, n, rail.Config{})
		if len(chunks) != 1 || chunks[0].Rail != 0 || chunks[0].Len != n {
			t.Errorf("split %d with rail 1 down: %+v", s, chunks)
		}
	}
}

// TestPickWholeMemo: on idle rails pickWhole answers as planWhole does,
// and after a rail fails or a rail's slowdown is learnt it answers from
// the rails as they are, not from its memo.
func TestPickWholeMemo(t *testing.T) {
	a, _ := pair(t, 2, Config{}, func(i, side int, c net.Conn) net.Conn { return muteConn{c} })
	fresh := func() int {
		r, _, _ := planWhole(a.cfg.Split, a.snapshot(), 100, a.cfg.Strategy)
		return r
	}
	a.mu.Lock()
	r, _, ok := a.pickWhole(100)
	if !ok || r != fresh() || !a.idle.ok {
		t.Fatalf("pickWhole: rail %d (%v), planWhole rail %d, memo kept %v", r, ok, fresh(), a.idle.ok)
	}
	a.learn(&pendChunk{h: header{len: 1 << 20, total: 2 << 20}, rail: r, posted: time.Now().Add(-time.Second), expect: time.Millisecond, slow: 1}, time.Now())
	if a.idle.ok {
		t.Error("a slowdown learnt left the memo")
	}
	a.pickWhole(100)
	a.mu.Unlock()
	a.railFailed(r, errors.New("test"))
	a.mu.Lock()
	defer a.mu.Unlock()
	if got, _, _ := a.pickWhole(100); got == r || got != fresh() {
		t.Errorf("with rail %d down, pickWhole says rail %d, planWhole %d", r, got, fresh())
	}
}
