package match

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// wildStream encodes message seq of the stream (a, tag) so that any
// receive can tell where it came from.

func wildStream(a, tag, seq int) int { return seq<<16 | a<<8 | tag }

func wildKey(v int) Key { return Key{Comm: 2, Source: int32(v >> 8 & 255), Tag: int32(v & 255)} }

// wildReceiver is one goroutine posting receives of one pattern and
// cancelling some of them; slots are in posting order.
type wildReceiver struct {
	key       Key
	slots     []*recv
	cancelled map[*recv]bool
}

// TestStressWild mixes exact, AnySource, AnyTag and fully wild receivers
// with arrivers, probes and cancels. Each message must be received exactly
// once, by a receive that accepts it, and no receiver may see a stream's
// messages out of order (MPI non-overtaking).
func TestStressWild(t *testing.T) {
	sources, tags, n, receivers := 4, 4, 200, 16
	if testing.Short() {
		n = 60
	}
	tab := New[int, *recv](Config{Shards: 64})
	quota := sources * tags * n * 3 / 4 / receivers
	rs := make([]*wildReceiver, receivers)
	for i := range rs {
		rs[i] = &wildReceiver{key: wildPattern(i, sources, tags), cancelled: map[*recv]bool{}}
	}
	var arrivals, posts sync.WaitGroup
	start := make(chan struct{}) // so that no goroutine runs far ahead
	for a := range sources {
		arrivals.Go(func() {
			<-start
			for seq := range n {
				runtime.Gosched()
				for tag := range tags {
					v := wildStream(a, tag, seq)
					arrive(t, tab, wildKey(v), v)
				}
			}
		})
	}
	for _, r := range rs {
		posts.Go(func() { <-start; r.run(t, tab, quota) })
	}
	close(start)
	stop := probeUntil(t, tab)
	arrivals.Wait()
	posts.Wait()
	stop()
	drained := drainWild(t, tab, rs)
	checkWild(t, append(rs, drained), sources*tags*n)
	if u, p := tab.Len(); u != 0 || p != 0 {
		t.Errorf("left over: %d unexpected, %d posted", u, p)
	}
}

// wildPattern gives receiver i one of the four kinds of receive key.
func wildPattern(i, sources, tags int) Key {
	k := Key{Comm: 2, Source: int32(i % sources), Tag: int32(i / 4 % tags)}
	switch i % 4 {
	case 1:
		k.Source = AnySource
	case 2:
		k.Tag = AnyTag
	case 3:
		k.Source, k.Tag = AnySource, AnyTag
	}
	return k
}

// run posts quota receives, cancelling every seventh one two posts later.
func (w *wildReceiver) run(t *testing.T, tab *Table[int, *recv], quota int) {
	for i := range quota {
		s := &recv{key: w.key}
		if m, ok, err := tab.Post(s.key, s); err != nil {
			t.Error(err)
		} else if ok {
			s.fill(m)
		}
		w.slots = append(w.slots, s)
		if i%4 == 0 {
			runtime.Gosched()
		}
		if i%7 == 2 {
			c := w.slots[i-2]
			w.cancelled[c] = tab.Cancel(c.key, func(r *recv) bool { return r == c })
		}
	}
}

// probeUntil probes wildcard keys until stopped, checking that each
// reported key is the message's own.
func probeUntil(t *testing.T, tab *Table[int, *recv]) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := 0; !done.Load(); i++ {
			m, k, ok := tab.Probe(wildPattern(i, 4, 4))
			if ok && k != wildKey(m) {
				t.Errorf("probe returned message %x with key %v", m, k)
			}
		}
	})
	return func() { done.Store(true); wg.Wait() }
}

// drainWild checks that no receive still posted has a matching message
// waiting, cancels those receives, each of which must still be there, and
// receives what is left with one fully wild receiver.
func drainWild(t *testing.T, tab *Table[int, *recv], rs []*wildReceiver) *wildReceiver {
	for _, r := range rs {
		for _, s := range r.slots {
			if s.hits != 0 || r.cancelled[s] {
				continue
			}
			if m, _, ok := tab.Probe(s.key); ok {
				t.Errorf("receive %v still posted while message %x waits", s.key, m)
			}
			if !tab.Cancel(s.key, func(x *recv) bool { return x == s }) {
				t.Errorf("unfilled receive %v could not be cancelled", s.key)
			}
		}
	}
	d := &wildReceiver{key: Key{Comm: 2, Source: AnySource, Tag: AnyTag}}
	for {
		s := &recv{key: d.key}
		m, ok, _ := tab.Post(s.key, s)
		if !ok {
			tab.Cancel(s.key, func(x *recv) bool { return x == s })
			return d
		}
		s.fill(m)
		d.slots = append(d.slots, s)
	}
}

// checkWild demands exactly-once delivery of total messages to receives
// that accept them, and increasing sequence numbers per stream within
// each receiver.
func checkWild(t *testing.T, rs []*wildReceiver, total int) {
	seen := map[int]bool{}
	for i, r := range rs {
		last := map[Key]int{}
		for _, s := range r.slots {
			if s.hits == 0 {
				continue
			}
			k := wildKey(s.val)
			if s.hits > 1 || r.cancelled[s] || seen[s.val] || !s.key.Matches(k) {
				t.Fatalf("receiver %d (%v): message %x delivered %d times, cancelled %v, seen %v",
					i, s.key, s.val, s.hits, r.cancelled[s], seen[s.val])
			}
			if prev, ok := last[k]; ok && s.val>>16 <= prev {
				t.Fatalf("receiver %d (%v): stream %v message %d after %d", i, s.key, k, s.val>>16, prev)
			}
			seen[s.val], last[k] = true, s.val>>16
		}
	}
	if len(seen) != total {
		t.Errorf("received %d messages, want %d", len(seen), total)
	}
}

// TestRaceWildPostArrive races a wildcard Post against the one message it
// matches, many times over: afterwards exactly one side must have matched,
// never both stored (a missed match) or both matched. The table holds
// other messages in no shard (the Post locks none), in a few (it locks
// those) or in more than maxBusy (it locks them all).
func TestRaceWildPostArrive(t *testing.T) {
	rounds := 10000
	if testing.Short() {
		rounds = 3000
	}
	for _, c := range []struct{ shards, held int }{{1, 0}, {256, 0}, {256, 3}, {256, 4 * maxBusy}} {
		tab := New[int, int](Config{Shards: c.shards})
		for i := range c.held {
			tab.Arrive(Key{Comm: 9, Tag: int32(i)}, i) // no receive here takes these
		}
		if u, _ := tab.Len(); u != c.held {
			t.Fatalf("%d held messages, table holds %d", c.held, u)
		}
		shards := c.shards
		for i := range rounds {
			k := Key{Comm: 3, Source: int32(i % 5), Tag: int32(i)}
			w := Key{Comm: 3, Source: AnySource, Tag: int32(i)}
			if i%2 == 1 {
				w = Key{Comm: 3, Source: k.Source, Tag: AnyTag}
			}
			if got := racePair(tab, k, w); got != 1 {
				u, p := tab.Len()
				t.Fatalf("%d shards, %d held, round %d: %d matches, table holds %d+%d", shards, c.held, i, got, u, p)
			}
		}
	}
}

// racePair runs Arrive(k) and Post(w) at once and counts the matches; it
// leaves the table empty whatever happens.
func racePair(tab *Table[int, int], k, w Key) int {
	var arrived, posted bool
	var wg sync.WaitGroup
	start := make(chan struct{})
	wg.Go(func() { <-start; _, arrived, _ = tab.Arrive(k, 1) })
	wg.Go(func() { <-start; _, posted, _ = tab.Post(w, 2) })
	close(start)
	wg.Wait()
	n := 0
	if arrived {
		n++
	}
	if posted {
		n++
	}
	if n == 0 {
		tab.Post(k, 0)
		tab.Cancel(w, func(int) bool { return true })
	}
	return n
}
