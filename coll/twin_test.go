package coll

import (
	"context"
	"errors"
	"math/rand"
	"slices"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/ring"
)

// The twin must behave as a ring does: the same random sequence of sends
// and receives (kept within the ring's guaranteed capacity) gives the same
// results on both, truncations included.
func TestTwinMatchesRing(t *testing.T) {
	const slots = 16
	rng := rand.New(rand.NewSource(7))
	tx, rx := newTwinPair(slots, slots/2*ring.SlotPayload)
	rtx, rrx := ring.NewPairs(slots)
	var queued []int // ring slots of each queued message
	for step := range rounds(20000) {
		if rng.Intn(2) == 0 {
			msg := make([]byte, rng.Intn(150))
			rng.Read(msg)
			k := max(1, (len(msg)+ring.SlotPayload-1)/ring.SlotPayload)
			if total(queued)+k > slots/2 {
				continue
			}
			a, errA := tx.TrySend(msg)
			b, errB := rtx.TrySend(msg)
			if !a || !b || errA != nil || errB != nil {
				t.Fatalf("step %d: send: twin %v %v, ring %v %v", step, a, errA, b, errB)
			}
			queued = append(queued, k)
			continue
		}
		size := rng.Intn(160)
		bufA, bufB := make([]byte, size), make([]byte, size)
		nA, okA, errA := rx.TryRecv(bufA)
		nB, okB, errB := rrx.TryRecv(bufB)
		if nA != nB || okA != okB || errors.Is(errA, ErrTruncated) != errors.Is(errB, ring.ErrTruncated) ||
			!slices.Equal(bufA, bufB) {
			t.Fatalf("step %d: recv: twin %d %v %v, ring %d %v %v", step, nA, okA, errA, nB, okB, errB)
		}
		if okA {
			queued = queued[1:]
		}
	}
}

func total(xs []int) int {
	s := 0
	for _, x := range xs {
		s += x
	}
	return s
}

func TestTwinFault(t *testing.T) {
	a, b := newTwinPair(4, 8)
	a.p.failAfter = 2
	ctx := context.Background()
	for range 2 {
		if err := a.Send(ctx, []byte("x")); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Send(ctx, []byte("x")); !errors.Is(err, errInjected) {
		t.Fatalf("third send: %v, want errInjected", err)
	}
	buf := make([]byte, 8)
	for range 2 {
		if n, err := b.Recv(ctx, buf); n != 1 || err != nil {
			t.Fatalf("queued message: %d, %v", n, err)
		}
	}
	if _, err := b.Recv(ctx, buf); !errors.Is(err, errInjected) {
		t.Fatalf("drained: %v, want errInjected", err)
	}
	if _, err := a.TrySend(make([]byte, 9)); !errors.Is(err, ErrTooLarge) {
		t.Errorf("oversized send: %v", err)
	}
}

func TestTwinWaitsHonourContext(t *testing.T) {
	a, b := newTwinPair(1, 8)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel()
	if _, err := b.Recv(ctx, nil); err != context.DeadlineExceeded {
		t.Errorf("empty recv: %v", err)
	}
	a.Send(context.Background(), nil)
	if err := a.Send(ctx, nil); err != context.DeadlineExceeded {
		t.Errorf("full send: %v", err)
	}
}
