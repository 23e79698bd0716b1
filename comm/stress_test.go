package comm

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestFloodBudget floods a rank with messages nobody receives yet. Its
// unexpected bytes must stay within the budget (senders fall back to
// rendezvous), and every message must still arrive, in order, once the
// receives are posted.
func TestFloodBudget(t *testing.T) {
	const budget = 64 << 10
	ws, _ := twinWorlds(t, 3, Config{EagerLimit: 2048, UnexpectedBudget: budget, ChunkSize: 1024})
	ctx := testCtx(t)
	const per = 300
	size := func(i int) int { return (i * 37) % 2000 }
	var reqs []*Request
	for src := 1; src <= 2; src++ {
		for i := range per {
			r, err := ws[src].Isend(0, 1, payload(src, i, size(i)))
			if err != nil {
				t.Fatal(err)
			}
			reqs = append(reqs, r)
		}
	}
	// Beyond the budget only announcements come, each charged rtsCost.
	deadline := time.Now().Add(5 * time.Second)
	for n, _ := ws[0].table.Len(); n < 2*per && time.Now().Before(deadline); n, _ = ws[0].table.Len() {
		if u := ws[0].UnexpectedBytes(); u > budget+int64(n)*rtsCost {
			t.Fatalf("unexpected bytes %d over the budget %d and %d announcements", u, budget, n)
		}
		time.Sleep(time.Millisecond)
	}
	n, _ := ws[0].table.Len()
	u := ws[0].UnexpectedBytes()
	if u > budget+int64(n)*rtsCost || u < budget/2 {
		t.Fatalf("unexpected bytes %d, want in [%d, %d]", u, budget/2, budget+int64(n)*rtsCost)
	}
	buf := make([]byte, 2048)
	for i := range per {
		for src := 1; src <= 2; src++ {
			st, err := ws[0].Recv(ctx, src, 1, buf)
			if err != nil {
				t.Fatal(err)
			}
			if err := check(buf[:st.Len], src, i, size(i)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := Waitall(ctx, reqs...); err != nil {
		t.Fatal(err)
	}
	if u := ws[0].UnexpectedBytes(); u != 0 {
		t.Errorf("%d unexpected bytes left after every receive", u)
	}
}

// TestManyGoroutines runs one goroutine per message on both sides, each
// with its own tag, and checks every payload exactly once.
func TestManyGoroutines(t *testing.T) { eachTransport(t, testManyGoroutines) }

func testManyGoroutines(t *testing.T, mk func(testing.TB, int, Config) fixture) {
	n := 100_000
	if testing.Short() || raceEnabled {
		n = 10_000 // the race detector makes each goroutine's work many times slower
	}
	ws := mk(t, 2, Config{EagerLimit: 1024, ChunkSize: 512}).ws
	ctx := testCtx(t)
	size := func(i int) int { return 8 + i%97 + (i%500)/499*1500 }
	var wg sync.WaitGroup
	var got atomic.Int64
	seen := make([]atomic.Bool, n)
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			if err := ws[0].Send(ctx, 1, i, payload(0, i, size(i))); err != nil {
				t.Error(err)
			}
		}()
		go func() {
			defer wg.Done()
			buf := make([]byte, size(i))
			st, err := ws[1].Recv(ctx, 0, i, buf)
			if err == nil {
				err = check(buf[:st.Len], 0, st.Tag, st.Len)
			}
			if err != nil {
				t.Error(err)
				return
			}
			if seen[st.Tag].Swap(true) {
				t.Errorf("tag %d received twice", st.Tag)
			}
			got.Add(1)
		}()
	}
	wg.Wait()
	if got.Load() != int64(n) {
		t.Fatalf("received %d of %d messages", got.Load(), n)
	}
}
