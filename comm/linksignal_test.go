package comm

import (
	"errors"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/coll"
)

var (
	_ coll.Signaler   = (*Link)(nil)
	_ coll.SignalWord = (*Link)(nil)
)

// allTransports runs f per transport this platform has, shm included.
func allTransports(t *testing.T, f func(t *testing.T, mk func(t testing.TB, n int, cfg Config) fixture)) {
	for _, name := range benchTransports() {
		t.Run("transport="+name, func(t *testing.T) { f(t, makers[name]) })
	}
}

// TestLinkSignals raises signals on two channels (one with shared
// counters on shm, one past them) while the other end watches: the
// counts only grow, end exactly at the number raised, and stay apart
// per channel and direction.
func TestLinkSignals(t *testing.T) {
	allTransports(t, func(t *testing.T, mk func(t testing.TB, n int, cfg Config) fixture) {
		ws := mk(t, 2, Config{}).ws
		n := 3000
		if testing.Short() {
			n = 500
		}
		for _, ch := range []int{1, 40} {
			a, b := linkPair(t, ws, ch)
			errc := make(chan error, 1)
			go func() {
				for range n {
					if err := a.Signal(); err != nil {
						errc <- err
						return
					}
				}
				errc <- nil
			}()
			watchSignals(t, b, uint64(n))
			if err := <-errc; err != nil {
				t.Fatal(err)
			}
			word := b.SignalWord()
			_, shm := ws[1].t.(shmSignaller)
			if want := shm && ch < 16; want != (word != nil) {
				t.Fatalf("channel %d: shm %v, SignalWord %v", ch, shm, word)
			}
			if word != nil && word.Load() != uint64(n) {
				t.Fatalf("channel %d: the shared word reads %d, want %d", ch, word.Load(), n)
			}
			if got, err := a.Signals(); got != 0 || err != nil {
				t.Fatalf("channel %d: the signaller's end counts %d, %v; want 0", ch, got, err)
			}
		}
	})
}

// watchSignals polls l until it has counted want signals, failing if the
// count ever falls or passes want, or takes too long.
func watchSignals(t *testing.T, l *Link, want uint64) {
	t.Helper()
	var last uint64
	for deadline := time.Now().Add(10 * time.Second); last < want; {
		got, err := l.Signals()
		switch {
		case err != nil:
			t.Fatal(err)
		case got < last || got > want:
			t.Fatalf("signal count went from %d to %d (want %d)", last, got, want)
		case time.Now().After(deadline):
			t.Fatalf("only %d of %d signals arrived", got, want)
		}
		last = got
		if l.w.t != nil {
			if p, ok := l.w.t.(poller); ok {
				p.Poll(-1)
			}
		}
	}
}

// TestLinkSignalBell: a signal rings the bell of a receiver that does not
// poll — by the frame itself, or on shm by the nudge sent because the
// receive goroutine sleeps, or by Idle before it sleeps.
func TestLinkSignalBell(t *testing.T) {
	allTransports(t, func(t *testing.T, mk func(t testing.TB, n int, cfg Config) fixture) {
		ws := mk(t, 2, Config{}).ws
		a, b := linkPair(t, ws, 2)
		bell := make(chan struct{}, 1)
		b.SetBell(bell)
		for round := range 3 {
			time.Sleep(20 * time.Millisecond) // let the receive goroutine fall asleep
			for len(bell) > 0 {
				<-bell // Idle's rings while falling asleep
			}
			wakes := shmWakes(ws[0])
			if err := a.Signal(); err != nil {
				t.Fatal(err)
			}
			if w := shmWakes(ws[0]); w >= 0 && w == wakes {
				t.Fatalf("round %d: the signal to a sleeping shm receiver sent no nudge", round)
			}
			select {
			case <-bell:
			case <-time.After(time.Second):
				t.Fatalf("round %d: no bell within a second of the signal", round)
			}
			got, err := b.Signals()
			if got != uint64(round+1) || err != nil {
				t.Fatalf("round %d: Signals = %d, %v", round, got, err)
			}
		}
	})
}

// TestLinkSignalLost: once the peer is gone, Signals reports it with the
// count of the signals raised before, and Signal fails.
func TestLinkSignalLost(t *testing.T) {
	allTransports(t, func(t *testing.T, mk func(t testing.TB, n int, cfg Config) fixture) {
		f := mk(t, 2, Config{})
		a, b := linkPair(t, f.ws, 1)
		for range 5 {
			if err := a.Signal(); err != nil {
				t.Fatal(err)
			}
		}
		watchSignals(t, b, 5)
		f.kill(0)
		deadline := time.Now().Add(3 * time.Second)
		for {
			got, err := b.Signals()
			if err != nil {
				if !errors.Is(err, ErrPeerLost) || got != 5 {
					t.Fatalf("after the loss: Signals = %d, %v; want 5, ErrPeerLost", got, err)
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("loss of the peer not reported by Signals")
			}
			time.Sleep(time.Millisecond)
		}
		// The transport may report the loss (above) a moment before the
		// world has taken it in; Signal must fail once it has.
		for b.Signal() == nil {
			if time.Now().After(deadline) {
				t.Fatal("Signal to a lost peer kept succeeding")
			}
			time.Sleep(time.Millisecond)
		}
	})
}

// shmWakes returns how many times w's shm endpoint woke a sleeping peer,
// or -1 if w is not on shm.
func shmWakes(w *World) int64 {
	if s, ok := w.t.(shmSignaller); ok {
		return int64(s.Stats().Wakes)
	}
	return -1
}
