package multirail

import (
	"context"
	"math/rand/v2"
	"net"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// TestPendListFollowsItsModel drives a pendList and a plain slice (its
// reference) with the same random pushes, pops and takeAlls, long
// enough for the list to compact its array many times: both hold the
// same chunks in the same order after every step.
func TestPendListFollowsItsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	var pl pendList
	var model []*pendChunk
	for step := range 20000 {
		switch k := rng.IntN(10); {
		case k < 5:
			p := &pendChunk{h: header{msg: uint64(step)}}
			pl.push(p)
			model = append(model, p)
		case k < 9 && len(model) > 0:
			if pl.front() != model[0] {
				t.Fatalf("step %d: front is not the oldest chunk", step)
			}
			pl.pop()
			model = model[1:]
		case k == 9 && rng.IntN(50) == 0:
			got := pl.takeAll()
			if !samePend(got, model) {
				t.Fatalf("step %d: takeAll gave %d chunks, want the %d pending in order", step, len(got), len(model))
			}
			model = nil
		}
		if !samePend(pl.all(), model) {
			t.Fatalf("step %d: %d chunks, want the %d of the model in order", step, len(pl.all()), len(model))
		}
		if len(model) == 0 && pl.front() != nil {
			t.Fatalf("step %d: a front in an empty list", step)
		}
	}
}

func samePend(a, b []*pendChunk) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestAckMatchesTheOldestChunk: an acknowledgement ends the oldest chunk
// pending on the rail it came from, and only if it is that chunk's;
// another (a chunk further on, another length, another rail's) ends
// nothing, and neither does one from a rail that is down, whose chunks
// went to another rail.
func TestAckMatchesTheOldestChunk(t *testing.T) {
	a, _ := pair(t, 2, Config{}, func(i, side int, c net.Conn) net.Conn { return muteConn{c} })
	a.mu.Lock()
	defer a.mu.Unlock()
	m := &sendMsg{size: 3, next: 3, left: 2}
	a.unsettled, a.inflight = append(a.unsettled, m), 3
	first := &pendChunk{h: header{kind: kindData, len: 1, msg: 7, off: 0, total: 3}, msg: m}
	second := &pendChunk{h: header{kind: kindData, len: 2, msg: 7, off: 1, total: 3}, msg: m}
	a.assign(first, 0, time.Time{}, time.Millisecond)
	a.assign(second, 0, time.Time{}, time.Millisecond)
	for _, h := range []header{ackOf(second.h), {kind: kindAck, len: 2, msg: 7, off: 0, total: 3}} {
		a.acked(a.rails[0], h)
		a.acked(a.rails[1], ackOf(first.h))
	}
	if a.rails[0].pend.front() != first || a.rails[0].unacked != 3 || m.left != 2 {
		t.Fatalf("an acknowledgement not of rail 0's oldest chunk ended one: %d unacknowledged, %d chunks left", a.rails[0].unacked, m.left)
	}
	a.acked(a.rails[0], ackOf(first.h))
	if a.rails[0].pend.front() != second || a.rails[0].unacked != 2 || m.left != 1 {
		t.Fatalf("the oldest chunk's acknowledgement did not end it: %d unacknowledged, %d chunks left", a.rails[0].unacked, m.left)
	}
	a.rails[0].down = true
	a.resend(a.rails[0])
	a.acked(a.rails[0], ackOf(second.h)) // its first copy's, from the failed rail
	if a.rails[1].pend.front() != second || m.left != 1 {
		t.Fatal("an acknowledgement from a failed rail ended a chunk sent again")
	}
	a.acked(a.rails[1], ackOf(second.h))
	if a.rails[1].pend.front() != nil || !m.done || m.err != nil || len(a.unsettled) != 0 {
		t.Errorf("the copy's acknowledgement did not end the message: done %v, err %v, %d unsettled", m.done, m.err, len(a.unsettled))
	}
}

// TestDueTick: a chunk queued at any moment of tick k is late no sooner
// than d after, and at most two ticks later than that.
func TestDueTick(t *testing.T) {
	per := 10 * time.Millisecond
	for _, d := range []time.Duration{0, time.Millisecond, per, per + 1, 7*per + 3*time.Millisecond, 2 * time.Second} {
		for k := range uint64(3) {
			due := dueTick(k, d, per)
			latest := time.Duration(k+1) * per // queued just before tick k+1
			earliest := time.Duration(k) * per // queued just after tick k
			at := time.Duration(due) * per
			if at < latest+d || at > earliest+d+2*per {
				t.Errorf("d %v, queued in tick %d: late at tick %d (%v), want between %v and %v", d, k, due, at, latest+d, earliest+d+2*per)
			}
		}
	}
}

// TestReaderReadsOncePollsStop: a Recv that got its message leaves the
// rails' readers standing aside (it is likely to poll again soon), but
// once no Recv polls, a reader reads again by itself within twice
// asideMax: a message then reaches the inbox with nobody polling.
func TestReaderReadsOncePollsStop(t *testing.T) {
	// A deadline far away: a rail taken down for an acknowledgement left
	// unread would also bring the answer, through its failover.
	a, b := tcpPair(t, 2, Config{Poll: true, AckTimeout: time.Minute})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	go echoLink(ctx, b, false)
	aside := func() bool { // a spin polled since the last that ended unready
		hot := a.rails[a.hot.Load()]
		return hot.spins.Load() != hot.spinsOver.Load()
	}
	for i := 0; i < 50 || !aside(); i++ {
		if i == 5000 {
			t.Fatal("no ping-pong left the readers standing aside")
		}
		if err := a.Send(ctx, []byte("ping")); err != nil {
			t.Fatal(err)
		}
		if _, err := a.Recv(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Send(ctx, []byte("ping")); err != nil { // the answer comes with nobody polling
		t.Fatal(err)
	}
	deadline := time.Now().Add(time.Second) // the bound is tens of milliseconds; the slack is for a loaded machine
	for a.ready.Load() == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the answer was not read within 1 s of the last poll: the readers stood aside for good")
		}
		time.Sleep(100 * time.Microsecond)
	}
}

// TestLazyAcksBounded: lazy acknowledgements do not wake the rail's
// writer until more than lazyMax wait (a one-way stream's receiver never
// writes for them to go with); the write that takes them starts the
// count again; an urgent job wakes the writer at once.
func TestLazyAcksBounded(t *testing.T) {
	c, d := net.Pipe()
	defer c.Close()
	defer d.Close()
	rc := newRailConn(0, c, rail.Profile{}, make(chan struct{}), &bufPool{})
	defer rc.ackTimer.Stop()
	woken := func() bool {
		select {
		case <-rc.wake:
			return true
		default:
			return false
		}
	}
	for round := range 2 {
		for i := range lazyMax {
			rc.push(job{h: header{kind: kindAck, msg: uint64(i)}}, false)
			if woken() {
				t.Fatalf("round %d: the writer woken with %d lazy acknowledgements waiting", round, i+1)
			}
		}
		rc.push(job{h: header{kind: kindAck, msg: lazyMax}}, false)
		if !woken() {
			t.Fatalf("round %d: %d lazy acknowledgements waiting and the writer not woken", round, lazyMax+1)
		}
		rc.qmu.Lock()
		if js := rc.takeLocked(); len(js) != lazyMax+1 {
			t.Fatalf("round %d: the write took %d jobs, want %d", round, len(js), lazyMax+1)
		}
		rc.writing = false
		rc.qmu.Unlock()
	}
	rc.push(job{h: header{kind: kindData}}, true)
	if !woken() {
		t.Fatal("an urgent job did not wake the writer")
	}
}
