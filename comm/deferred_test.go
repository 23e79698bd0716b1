package comm

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// creditWorld is a one-rank world whose deferred credit returns land, at
// once, on its own credit towards itself: a counter of actions run.
func creditWorld(t *testing.T) *World {
	ws, _ := twinWorlds(t, 1, Config{})
	return ws[0]
}

// awaitCredit waits until w's credit towards itself is want, then checks
// that it stays there (no action runs twice).
func awaitCredit(t *testing.T, w *World, want int64) {
	t.Helper()
	c := &w.peers[0].credit
	for end := time.Now().Add(10 * time.Second); c.Load() != want; {
		if time.Now().After(end) {
			t.Fatalf("credit %d, want %d: a deferred action was stranded", c.Load(), want)
		}
		time.Sleep(100 * time.Microsecond)
	}
	time.Sleep(20 * time.Millisecond)
	if got := c.Load(); got != want {
		t.Fatalf("credit %d after settling, want %d: an action ran twice", got, want)
	}
}

func TestLaterWithoutPoller(t *testing.T) {
	w := creditWorld(t)
	base := w.peers[0].credit.Load()
	w.later(action{kind: actCredit, peer: 0, n: 7})
	awaitCredit(t, w, base+7)
}

func TestLaterWithPoller(t *testing.T) {
	w := creditWorld(t)
	base := w.peers[0].credit.Load()
	if !w.spinning.CompareAndSwap(false, true) {
		t.Fatal("a fresh world has a poller")
	}
	w.later(action{kind: actCredit, peer: 0, n: 7})
	time.Sleep(20 * time.Millisecond)
	if got := w.peers[0].credit.Load(); got != base {
		t.Fatalf("credit %d, want %d: the action ran without the poller", got, base)
	}
	w.drain() // the poller's drain after a Poll
	if got := w.peers[0].credit.Load(); got != base+7 {
		t.Fatalf("credit %d after the poller drained, want %d", got, base+7)
	}
	w.later(action{kind: actCredit, peer: 0, n: 5})
	w.stopSpinning() // the poller leaves: it runs what is left
	if got := w.peers[0].credit.Load(); got != base+12 {
		t.Fatalf("credit %d after the poller left, want %d", got, base+12)
	}
	awaitCredit(t, w, base+12)
}

// TestLaterStress queues actions from several goroutines while pollers
// come and go as fast as they can: every action runs, once.
func TestLaterStress(t *testing.T) {
	w := creditWorld(t)
	base := w.peers[0].credit.Load()
	const senders, each = 4, 5000
	stop := make(chan struct{})
	var pollers sync.WaitGroup
	for range 2 {
		pollers.Add(1)
		go func() {
			defer pollers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				if w.spinning.CompareAndSwap(false, true) {
					w.drain()
					w.stopSpinning()
				}
			}
		}()
	}
	var wg sync.WaitGroup
	for range senders {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				w.later(action{kind: actCredit, peer: 0, n: 1})
			}
		}()
	}
	wg.Wait()
	close(stop)
	pollers.Wait()
	awaitCredit(t, w, base+senders*each)
}

// TestLaterPollerLeaving races one queued action against the poller
// leaving at that moment, round after round, and checks after each round
// that the action ran: with all activity stopped, nobody else would
// rescue an action left behind.
func TestLaterPollerLeaving(t *testing.T) {
	w := creditWorld(t)
	base := w.peers[0].credit.Load()
	rounds := 3000
	if testing.Short() {
		rounds = 500
	}
	for i := range rounds {
		if !w.spinning.CompareAndSwap(false, true) {
			t.Fatal("a poller is left over from the last round")
		}
		var ready, start atomic.Bool
		queued := make(chan struct{})
		go func() {
			ready.Store(true)
			for !start.Load() {
			}
			w.later(action{kind: actCredit, peer: 0, n: 1})
			close(queued)
		}()
		for !ready.Load() { // both goroutines running, on two Ps if there are two
			runtime.Gosched()
		}
		start.Store(true)
		w.stopSpinning()
		<-queued
		want := base + int64(i) + 1
		for end := time.Now().Add(time.Second); w.peers[0].credit.Load() != want; {
			if time.Now().After(end) {
				t.Fatalf("round %d: credit %d, want %d: the action was left behind", i, w.peers[0].credit.Load(), want)
			}
			runtime.Gosched()
		}
	}
}
