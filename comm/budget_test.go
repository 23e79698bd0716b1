package comm

import (
	"encoding/binary"
	"runtime"
	"testing"
	"time"
)

// TestUnexpectedBound floods a rank that is not receiving with small
// messages, many times its budget's worth. The eager messages it stores
// must cost no more than the budget, every stored entry (announcements
// included) must be charged at least the heap it takes, and every message
// must then arrive, in order.
func TestUnexpectedBound(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector's shadow memory blurs the heap")
	}
	n := 200_000
	if testing.Short() {
		n = 20_000
	}
	const budget = 1 << 20
	ws, _ := twinWorlds(t, 2, Config{UnexpectedBudget: budget})
	ctx := testCtx(t)
	out := make([]byte, 8*n)
	reqs := make([]*Request, n)
	eager := 0
	for i := range n {
		b := binary.LittleEndian.AppendUint64(out[8*i:8*i], uint64(i))
		r, err := ws[0].Isend(1, 1, b)
		if err != nil {
			t.Fatal(err)
		}
		reqs[i] = r
		if r.shared {
			eager++
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for got, _ := ws[1].table.Len(); got < n; got, _ = ws[1].table.Len() {
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages stored", got, n)
		}
		time.Sleep(time.Millisecond)
	}
	if c := int64(eager) * eagerCost(8); c > budget {
		t.Errorf("%d eager messages stored, costing %d bytes: over the budget %d", eager, c, budget)
	}
	charged := ws[1].UnexpectedBytes()
	stored := liveHeap()
	buf := make([]byte, 8)
	for i := range n {
		st, err := ws[1].Recv(ctx, 0, 1, buf)
		if err != nil || st.Len != 8 || binary.LittleEndian.Uint64(buf) != uint64(i) {
			t.Fatalf("message %d: %+v %v, got number %d", i, st, err, binary.LittleEndian.Uint64(buf))
		}
	}
	if _, err := Waitall(ctx, reqs...); err != nil {
		t.Fatal(err)
	}
	heap := stored - liveHeap() // the stored entries' heap: the senders' state stays alive
	runtime.KeepAlive(reqs)
	runtime.KeepAlive(out)
	if heap > charged+charged/4 {
		t.Errorf("%d stored messages took %d bytes of heap, charged %d", n, heap, charged)
	}
	if u := ws[1].UnexpectedBytes(); u != 0 {
		t.Errorf("%d unexpected bytes left after every receive", u)
	}
	t.Logf("%d messages, %d eager: charged %d bytes, heap %d", n, eager, charged, heap)
}

// liveHeap returns the bytes of live heap objects, pooled buffers dropped.
func liveHeap() int64 {
	runtime.GC()
	runtime.GC() // sync.Pool keeps its victims one cycle
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapAlloc)
}
