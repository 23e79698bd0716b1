package multirail

import (
	"context"
	"sync"
	"testing"
	"time"
)

// TestRecycledRecords sends eager messages of every size up to past the
// kept copy's bound (freeBufMax), from the caller's goroutine, both ways
// at once, while the receivers poll: records and their copies go round
// the free lists many times, and every message still arrives once,
// intact and in order (a record reused before its chunk was written or
// acknowledged would send another message's bytes). Then a ping-pong
// sends each message back: the answers' records are recycled as the
// questions' acknowledgements come back with them.
func TestRecycledRecords(t *testing.T) {
	a, b := tcpPair(t, 2, Config{Poll: true})
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); exchange(t, a, b, randomMessages(41, 3000, freeBufMax+512)) }()
	go func() { defer wg.Done(); exchange(t, b, a, randomMessages(43, 3000, 200)) }()
	wg.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	go func() {
		for {
			m, err := b.Recv(ctx)
			if err != nil || b.Send(ctx, m) != nil {
				return
			}
		}
	}()
	for i, m := range randomMessages(47, 2000, 2*freeBufMax) {
		if err := a.Send(ctx, m); err != nil {
			t.Fatalf("send %d: %v", i, err)
		}
		got, err := a.Recv(ctx)
		if err != nil {
			t.Fatalf("answer %d: %v", i, err)
		}
		if string(got) != string(m) {
			t.Fatalf("answer %d: %d bytes, not the %d sent", i, len(got), len(m))
		}
	}
	for _, l := range []*Link{a, b} {
		l.mu.Lock()
		n := len(l.free)
		l.mu.Unlock()
		if n == 0 || n > freeRecords {
			t.Errorf("%d records free, want 1 to %d: none was recycled, or the list grew past its bound", n, freeRecords)
		}
	}
}

// TestReleasedBuffers: a receiver that releases every message after
// checking it gets later messages in the released arrays, every one
// intact (an array handed out twice would show another message's
// bytes); messages too long to keep, released, leave the pool within
// its bounds.
func TestReleasedBuffers(t *testing.T) {
	a, b := tcpPair(t, 2, Config{Poll: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	msgs := randomMessages(53, 4000, 2*freeBufMax)
	go func() {
		for i, m := range msgs {
			if err := a.Send(ctx, m); err != nil {
				t.Errorf("send %d: %v", i, err)
				return
			}
		}
	}()
	reused := 0
	seen := map[*byte]bool{}
	for i, want := range msgs {
		got, err := b.Recv(ctx)
		if err != nil {
			t.Fatalf("receive %d: %v", i, err)
		}
		if string(got) != string(want) {
			t.Fatalf("message %d: %d bytes, not the %d sent", i, len(got), len(want))
		}
		if len(got) > 0 {
			p := &got[:1][0]
			if seen[p] {
				reused++
			}
			seen[p] = true
		}
		b.Release(got)
	}
	if reused == 0 {
		t.Error("no message was received into a released array")
	}
	b.rbufs.mu.Lock()
	n := len(b.rbufs.small)
	for _, buf := range b.rbufs.small {
		if cap(buf) > freeBufMax {
			t.Errorf("a released array of %d bytes kept, over %d", cap(buf), freeBufMax)
		}
	}
	b.rbufs.mu.Unlock()
	if n > freeRecords {
		t.Errorf("%d arrays kept, over %d", n, freeRecords)
	}
}

// A record whose chunk was sent again is never recycled, in whichever
// order its two usual users let go: the resent chunk's writer does not
// say when it is done with the bytes.
func TestKeepOutlivesBothLetGos(t *testing.T) {
	for _, sendFirst := range []bool{true, false} {
		m := &sendMsg{holds: 2}
		if sendFirst && letGo(m) {
			t.Fatal("the Send's let-go was the last with the books still holding")
		}
		keep(m)
		if !sendFirst && letGo(m) {
			t.Fatal("the Send's let-go was the last after keep")
		}
		if letGo(m) {
			t.Errorf("send first %v: the books' let-go freed a kept record", sendFirst)
		}
	}
	m := &sendMsg{} // never held (its rail's writer wrote it): keep leaves it so
	keep(m)
	if m.holds != 0 {
		t.Errorf("keep gave an unheld record %d holds", m.holds)
	}
}
