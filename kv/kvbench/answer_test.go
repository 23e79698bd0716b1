package kvbench

import (
	"context"
	"encoding/binary"
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestAnswerNoLostWakeup has a "replica" answer request after request
// of one client that parks as soon as it may (no yield), storing each
// answer at a moment that sweeps across the client's polls and its park
// (a stress test: the race it guards against is nanoseconds wide, so
// TestAnswerPark checks the handshake's two orders one by one): every
// await returns, none sleeps through its answer (the context's deadline
// would end it), and an answer for an older request does not count.
func TestAnswerNoLostWakeup(t *testing.T) {
	n := uint64(20000)
	if testing.Short() {
		n = 2000
	}
	as := newAnswers(2) // client 1, at replica 1 of a group of 2
	var asked atomic.Uint64
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	go func() {
		for s := uint64(1); s <= n; s++ {
			for asked.Load() < s {
				runtime.Gosched()
			}
			for range s % 150 { // sweep the store across the client's 63 polls and its park
				runtime.Gosched()
			}
			answerAt(as, 2, 1, value(1, s-1)) // an old request's repeat: no answer
			answerAt(as, 2, 1, value(1, s))
		}
	}()
	for s := uint64(1); s <= n; s++ {
		asked.Store(s)
		if !as[1].await(ctx, s, 0, time.Now().Add(time.Minute)) {
			t.Fatalf("request %d: no answer before the deadline", s)
		}
		if got := as[1].done.Load(); got < s {
			t.Fatalf("request %d returned with answer %d", s, got)
		}
	}
}

func value(client, seq uint64) []byte {
	v := binary.LittleEndian.AppendUint64(nil, client)
	return binary.LittleEndian.AppendUint64(v, seq)
}

// TestAnswerPark checks both orders of the park handshake: an answer
// stored before the client announced it parks (no wake token is left)
// is seen by park's last look, and one stored while it is parked wakes
// it.
func TestAnswerPark(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	as := newAnswers(1)
	answerAt(as, 1, 0, value(0, 1))
	if !as[0].park(ctx, 1, time.Now().Add(time.Minute)) {
		t.Fatal("park slept through an answer stored before it parked")
	}
	done := make(chan bool)
	go func() { done <- as[0].park(ctx, 2, time.Now().Add(time.Minute)) }()
	for !as[0].parked.Load() {
		runtime.Gosched()
	}
	answerAt(as, 1, 0, value(0, 2))
	if !<-done {
		t.Fatal("park not woken by an answer stored while it was parked")
	}
}

// An answer that never comes ends await at its deadline, and park too:
// the client then proposes again (proposer.run) instead of hanging.
func TestAnswerDeadline(t *testing.T) {
	as := newAnswers(1)
	for _, yield := range []time.Duration{0, time.Hour} {
		start := time.Now()
		if as[0].await(context.Background(), 1, yield, start.Add(20*time.Millisecond)) {
			t.Fatalf("yield %v: await reported an answer that never came", yield)
		}
		if d := time.Since(start); d < 20*time.Millisecond || d > time.Minute {
			t.Errorf("yield %v: await returned after %v, want its 20ms deadline", yield, d)
		}
	}
	if as[0].park(context.Background(), 1, time.Now().Add(time.Millisecond)) {
		t.Error("park reported an answer that never came")
	}
}
