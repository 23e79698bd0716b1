//go:build linux

package shm

import (
	"errors"
	"sync"
	"testing"
	"time"
)

// TestSignalCounts: concurrent signallers on several slots and both
// directions; every count ends exactly at the number raised, and counts
// only grow while they are watched.
func TestSignalCounts(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 3, nil)
	n := count(20000)
	var wg sync.WaitGroup
	for from := range 3 {
		for _, to := range []int{(from + 1) % 3, (from + 2) % 3} {
			for _, slot := range []int{0, 5, SignalSlots - 1} {
				wg.Go(func() {
					for range n {
						if _, err := eps[from].Signal(to, slot); err != nil {
							t.Error(err)
							return
						}
					}
				})
			}
		}
	}
	watchGrows(t, eps[1], 0, 5, &wg)
	for to := range 3 {
		for from := range 3 {
			if from == to {
				continue
			}
			for slot := range SignalSlots {
				want := uint64(0)
				if slot == 0 || slot == 5 || slot == SignalSlots-1 {
					want = uint64(n)
				}
				if got, err := eps[to].Signals(from, slot); got != want || err != nil {
					t.Errorf("signals %d→%d slot %d = %d, %v; want %d", from, to, slot, got, err, want)
				}
			}
		}
	}
}

// watchGrows polls one counter until wg is done and fails if it ever
// goes down.
func watchGrows(t *testing.T, ep *Endpoint, peer, slot int, wg *sync.WaitGroup) {
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	var last uint64
	for {
		select {
		case <-done:
			return
		default:
		}
		n, err := ep.Signals(peer, slot)
		if err != nil || n < last {
			t.Fatalf("Signals went from %d to %d (%v)", last, n, err)
		}
		last = n
	}
}

func TestSignalBadArgs(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	for _, c := range []struct{ peer, slot int }{{0, 0}, {2, 0}, {-1, 0}, {1, -1}, {1, SignalSlots}} {
		if _, err := eps[0].Signal(c.peer, c.slot); err == nil {
			t.Errorf("Signal(%d, %d) succeeded", c.peer, c.slot)
		}
		if _, err := eps[0].Signals(c.peer, c.slot); err == nil {
			t.Errorf("Signals(%d, %d) succeeded", c.peer, c.slot)
		}
	}
}

// TestSignalAsleep: a signal to a rank whose receive goroutine sleeps
// says so; the receiver's Idle ran before it slept; after a peer closes,
// its signals are still counted and the loss is reported.
func TestSignalAsleep(t *testing.T) {
	idle := make(chan struct{}, 1)
	eps, sinks := openN(t, shmDir(t), 2, func(c *Config) {
		if c.Rank == 1 {
			c.Idle = func() {
				select {
				case idle <- struct{}{}:
				default:
				}
			}
		}
	})
	select {
	case <-idle:
	case <-time.After(time.Second):
		t.Fatal("an idle receive goroutine never called Idle")
	}
	asleep := false
	for deadline := time.Now().Add(time.Second); !asleep && time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		var err error
		if asleep, err = eps[0].Signal(1, 3); err != nil {
			t.Fatal(err)
		}
	}
	if !asleep {
		t.Fatal("Signal never saw the idle receiver asleep")
	}
	raised, _ := eps[1].Signals(0, 3)
	eps[0].Close()
	<-sinks[1].lost
	if n, err := eps[1].Signals(0, 3); n != raised || !errors.Is(err, ErrPeerLost) {
		t.Errorf("after the peer closed: Signals = %d, %v; want %d, ErrPeerLost", n, err, raised)
	}
	if _, err := eps[1].Signal(0, 3); !errors.Is(err, ErrPeerLost) {
		t.Errorf("Signal to a closed peer = %v, want ErrPeerLost", err)
	}
}

// TestSignalWordAfterClose: the word a receiver polls follows Signal, and
// reading it, or calling Signal and Signals, after Close neither faults
// nor succeeds.
func TestSignalWordAfterClose(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	w, err := eps[1].SignalWord(0, 7)
	if err != nil {
		t.Fatal(err)
	}
	count, _, err := eps[0].SignalTx(1, 7)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if _, err := eps[0].Signal(1, 7); err != nil {
			t.Fatal(err)
		}
		if got := w.Load(); got != uint64(2*i+1) {
			t.Fatalf("word reads %d after %d signals", got, 2*i+1)
		}
		count.Add(1) // what SignalTx's caller does instead of Signal
		if got, _ := eps[1].Signals(0, 7); got != uint64(2*i+2) {
			t.Fatalf("Signals reads %d after %d signals", got, 2*i+2)
		}
	}
	eps[1].Close()
	if got := w.Load(); got != 0 {
		t.Errorf("word reads %d after Close, want 0", got)
	}
	if _, err := eps[1].Signals(0, 7); err == nil {
		t.Error("Signals after Close succeeded")
	}
	if _, err := eps[1].Signal(0, 7); err == nil {
		t.Error("Signal after Close succeeded")
	}
}
