package match

import (
	"runtime"
	"sync"
	"testing"
)

// recv is a receive in the stress tests: whoever matches it fills it.
type recv struct {
	key  Key
	val  int
	hits int
}

// fill delivers message v into s; each receive must be filled exactly once,
// and two fills racing would also trip the race detector.
func (s *recv) fill(v int) {
	s.val = v
	s.hits++
}

// TestStressExact has receivers, each on its own tag, posting windows of
// receives while arrivers send each of them a numbered stream: every
// receive must get the next number of its stream, and nothing may remain.
func TestStressExact(t *testing.T) {
	receivers, arrivers, n := 64, 4, 200
	if testing.Short() {
		receivers, n = 16, 50
	}
	tab := New[int, *recv](Config{})
	key := func(a, j int) Key { return Key{Comm: 1, Source: int32(a), Tag: int32(1000 + j)} }
	var wg sync.WaitGroup
	slots := make([][]*recv, receivers)
	for j := range receivers {
		wg.Go(func() { slots[j] = postExact(t, tab, arrivers, n, func(a int) Key { return key(a, j) }) })
	}
	for a := range arrivers {
		wg.Go(func() {
			for seq := range n {
				for j := range receivers {
					arrive(t, tab, key(a, j), seq)
				}
			}
		})
	}
	wg.Wait()
	for j, ss := range slots {
		checkExact(t, j, ss, arrivers)
	}
	if u, p := tab.Len(); u != 0 || p != 0 {
		t.Errorf("left over: %d unexpected, %d posted", u, p)
	}
}

// postExact posts n receives per source, cycling over the sources and
// yielding now and then so arrivals interleave, and returns them in
// posting order.
func postExact(t *testing.T, tab *Table[int, *recv], sources, n int, key func(a int) Key) []*recv {
	var out []*recv
	for i := range n * sources {
		s := &recv{key: key(i % sources)}
		if m, ok, err := tab.Post(s.key, s); err != nil {
			t.Error(err)
		} else if ok {
			s.fill(m)
		}
		out = append(out, s)
		if i%8 == 0 {
			runtime.Gosched()
		}
	}
	return out
}

// arrive offers message v with key k and delivers it if a receive matched.
func arrive(t *testing.T, tab *Table[int, *recv], k Key, v int) {
	r, ok, err := tab.Arrive(k, v)
	if err != nil {
		t.Error(err)
	} else if ok {
		if !r.key.Matches(k) {
			t.Errorf("message %v matched a receive for %v", k, r.key)
		}
		r.fill(v)
	}
}

// checkExact demands that receiver j's i-th receive from each source got
// message i of that source's stream, exactly once.
func checkExact(t *testing.T, j int, ss []*recv, sources int) {
	for i, s := range ss {
		if s.hits != 1 || s.val != i/sources {
			t.Errorf("receiver %d, receive %d (%v): got %d after %d deliveries, want %d once",
				j, i, s.key, s.val, s.hits, i/sources)
			return
		}
	}
}
