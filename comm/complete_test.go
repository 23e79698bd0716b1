package comm

import (
	"errors"
	"sync"
	"sync/atomic"
	"testing"
)

// TestCompletionRace races an owner that goes to sleep against two
// finishers, many times: exactly one finish wins, the owner always wakes
// with the winner's status, and no token is ever left in done (a leftover
// would wake the next user of a pooled request too early).
func TestCompletionRace(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	errWin := errors.New("won")
	for i := range n {
		r := &Request{}
		var wins atomic.Int32
		var wg sync.WaitGroup
		wg.Add(2)
		start := make(chan struct{})
		fin := func(tag int) {
			defer wg.Done()
			<-start
			if r.finish(Status{Tag: tag}, errWin) {
				wins.Add(1)
			}
		}
		go fin(1)
		go fin(2)
		close(start)
		if i%3 == 0 {
			for !r.finished() {
			}
		}
		if r.sleep() {
			<-r.done
		}
		if !r.finished() || r.err != errWin || (r.status.Tag != 1 && r.status.Tag != 2) {
			t.Fatalf("round %d: owner woke with finished=%v status %+v err %v", i, r.finished(), r.status, r.err)
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("round %d: %d finishers won", i, wins.Load())
		}
		if len(r.done) != 0 {
			t.Fatalf("round %d: a token was left in done", i)
		}
	}
}

// TestCompletionNoSleeper checks that finishing a request nobody sleeps on
// sends no token and needs no channel.
func TestCompletionNoSleeper(t *testing.T) {
	r := &Request{}
	if !r.finish(Status{Len: 3}, nil) {
		t.Fatal("first finish lost")
	}
	if r.finish(Status{Len: 4}, nil) {
		t.Fatal("second finish won")
	}
	if r.done != nil || r.status.Len != 3 {
		t.Fatalf("done %v, status %+v", r.done, r.status)
	}
	if r.sleep() {
		t.Fatal("sleep on a finished request promised a token")
	}
}
