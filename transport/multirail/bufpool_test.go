package multirail

import (
	"context"
	"runtime"
	"sync"
	"testing"
	"time"
)

// longPool is a pool of long buffers with room for max bytes.
func longPool(max int) *bufPool { return &bufPool{max: max} }

// caps returns the capacities of the pool's long buffers.
func (p *bufPool) caps() map[int]int {
	p.mu.Lock()
	defer p.mu.Unlock()
	m := map[int]int{}
	for _, b := range p.big {
		m[cap(b)]++
	}
	return m
}

const kib = 1 << 10

// TestBufPoolGet: a long slice comes from the shortest buffer that fits,
// of at most twice its length unless brief; a short one from the last
// short buffer if it is long enough; else a fresh array.
func TestBufPoolGet(t *testing.T) {
	for _, c := range []struct {
		name  string
		have  []int // capacities put, in order
		n     int
		brief bool
		want  int // capacity of the slice got; 0: fresh (cap n)
	}{
		{"fits exactly", []int{64 * kib}, 64 * kib, false, 64 * kib},
		{"shortest that fits", []int{512 * kib, 100 * kib, 80 * kib, 32 * kib}, 70 * kib, false, 80 * kib},
		{"over twice as long: fresh", []int{512 * kib}, 100 * kib, false, 0},
		{"over twice as long, brief", []int{512 * kib, 1024 * kib}, 100 * kib, true, 512 * kib},
		{"none long enough", []int{64 * kib}, 65 * kib, true, 0},
		{"short from the last short", []int{2 * kib, 4 * kib}, 3 * kib, false, 4 * kib},
		{"last short too short", []int{4 * kib, 2 * kib}, 3 * kib, false, 0},
		{"short never from a long one", []int{64 * kib}, 4 * kib, true, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := longPool(1 << 30)
			for _, k := range c.have {
				p.put(make([]byte, 0, k))
			}
			b := p.get(c.n, c.brief)
			want := c.want
			if want == 0 {
				want = c.n
			}
			if len(b) != c.n || cap(b) != want {
				t.Fatalf("got len %d cap %d, want len %d cap %d", len(b), cap(b), c.n, want)
			}
		})
	}
}

// TestBufPoolPut: the pool keeps at most freeBig long buffers and max
// bytes of them; a longer buffer takes the place of shorter ones, a
// shorter one is dropped when the pool is full; one over max, or any
// after drop, is not kept.
func TestBufPoolPut(t *testing.T) {
	p := longPool(100 * kib)
	for range freeBig + 2 {
		p.put(make([]byte, 0, 8*kib))
	}
	if got := p.caps(); got[8*kib] != freeBig {
		t.Fatalf("after %d puts of 8 KiB: %v, want %d kept", freeBig+2, got, freeBig)
	}
	p.put(make([]byte, 0, 6*kib)) // full of longer ones
	if got := p.caps(); got[6*kib] != 0 {
		t.Fatalf("a shorter buffer was kept in a full pool: %v", got)
	}
	p.put(make([]byte, 0, 60*kib)) // 64 KiB held: 60 more needs three 8s out
	if got := p.caps(); got[60*kib] != 1 || got[8*kib] != 5 || p.bigBytes != 100*kib {
		t.Fatalf("after a 60 KiB put: %v, %d bytes; want 60 KiB and five of 8 KiB, 100 KiB", got, p.bigBytes)
	}
	p.put(make([]byte, 0, 101*kib))
	if got := p.caps(); got[101*kib] != 0 {
		t.Fatalf("a buffer over max was kept: %v", got)
	}
	p.drop()
	p.put(make([]byte, 0, 8*kib))
	if got := p.caps(); len(got) != 0 {
		t.Fatalf("after drop: %v kept", got)
	}
}

// TestLongStreamRecycles: a stream of long messages split over two
// rails, each released once received, is received into recycled arrays:
// once the pool has filled, the stream allocates a small part of the
// bytes it carries, where receiving into fresh arrays allocated each
// message twice over (its chunks and the message); and every message
// arrives intact.
func TestLongStreamRecycles(t *testing.T) {
	const size, count, warm = 1 << 20, 40, 8
	a, b := tcpPair(t, 2, Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	msgs := randomMessages(7, 4, size)
	for i := range msgs {
		msgs[i] = append(msgs[i], make([]byte, size-len(msgs[i]))...)
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := range count {
			if err := a.Send(ctx, msgs[i%len(msgs)]); err != nil {
				t.Errorf("send %d: %v", i, err)
				return
			}
		}
	}()
	var ms0, ms1 runtime.MemStats
	for i := range count {
		if i == warm {
			runtime.ReadMemStats(&ms0)
		}
		got, err := b.Recv(ctx)
		if err != nil {
			t.Fatalf("receive %d: %v", i, err)
		}
		if string(got) != string(msgs[i%len(msgs)]) {
			t.Fatalf("message %d: %d bytes, not the %d sent", i, len(got), size)
		}
		b.Release(got)
	}
	runtime.ReadMemStats(&ms1)
	wg.Wait()
	carried := uint64((count - warm) * size)
	alloc := ms1.TotalAlloc - ms0.TotalAlloc
	t.Logf("%d messages of %d bytes: %d bytes allocated", count-warm, size, alloc)
	if alloc > carried/4 {
		t.Errorf("%d messages of %d bytes allocated %d bytes, over a quarter of the %d carried", count-warm, size, alloc, carried)
	}
	if st := a.Stats(); st.Chunks[0] == 0 || st.Chunks[1] == 0 {
		t.Fatalf("chunks per rail %v: the messages were not split", st.Chunks)
	}
}
