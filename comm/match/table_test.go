package match

import (
	"errors"
	"slices"
	"testing"
	"unsafe"
)

func TestBadKeys(t *testing.T) {
	tab := New[int, int](Config{})
	for _, k := range []Key{{Source: AnySource}, {Tag: AnyTag}, {Source: -7, Tag: 1}} {
		if _, _, err := tab.Arrive(k, 1); !errors.Is(err, ErrBadKey) {
			t.Errorf("Arrive(%v) = %v, want ErrBadKey", k, err)
		}
	}
	for _, k := range []Key{{Source: -2}, {Tag: -3}} {
		if _, _, err := tab.Post(k, 1); !errors.Is(err, ErrBadKey) {
			t.Errorf("Post(%v) = %v, want ErrBadKey", k, err)
		}
	}
	if u, p := tab.Len(); u+p != 0 {
		t.Errorf("rejected keys stored: %d+%d", u, p)
	}
}

func TestConfig(t *testing.T) {
	c := Config{}
	if err := c.Validate(); err != nil || c.Shards != DefaultShards {
		t.Errorf("zero Config: %v, Shards %d", err, c.Shards)
	}
	for _, n := range []int{-1, 3, 100, 1 << 17} {
		c := Config{Shards: n}
		if c.Validate() == nil {
			t.Errorf("Shards %d accepted", n)
		}
	}
}

// TestWildcardOrder checks the two earliest-match rules directly.
func TestWildcardOrder(t *testing.T) {
	tab := New[string, string](Config{Shards: 4})
	tab.Arrive(Key{Source: 2, Tag: 9}, "first")
	tab.Arrive(Key{Source: 1, Tag: 5}, "second")
	if m, _, _ := tab.Post(Key{Source: AnySource, Tag: AnyTag}, "r"); m != "first" {
		t.Errorf("wild receive got %q, want the earliest arrival", m)
	}
	tab.Post(Key{Source: 1, Tag: 5}, "drain")
	tab.Post(Key{Source: 3, Tag: AnyTag}, "wild")
	tab.Post(Key{Source: 3, Tag: 4}, "exact")
	if r, _, _ := tab.Arrive(Key{Source: 3, Tag: 4}, "m"); r != "wild" {
		t.Errorf("message matched %q, want the earlier posted wildcard", r)
	}
	if r, _, _ := tab.Arrive(Key{Source: 3, Tag: 4}, "m"); r != "exact" {
		t.Errorf("message matched %q, want the exact receive", r)
	}
}

func TestRemoveSource(t *testing.T) {
	tab := New[int, string](Config{Shards: 2})
	tab.Post(Key{Comm: 1, Source: 4, Tag: 1}, "exact")
	tab.Post(Key{Comm: 1, Source: 4, Tag: 2}, "exact2")
	tab.Post(Key{Comm: 1, Source: 4, Tag: AnyTag}, "anytag")
	tab.Post(Key{Comm: 1, Source: AnySource, Tag: 1}, "anysource")
	tab.Post(Key{Comm: 2, Source: 4, Tag: 1}, "other comm")
	tab.Arrive(Key{Comm: 1, Source: 5, Tag: 3}, 7)
	got := tab.RemoveSource(1, 4)
	slices.Sort(got)
	if want := []string{"anytag", "exact", "exact2"}; !slices.Equal(got, want) {
		t.Errorf("removed %q, want %q", got, want)
	}
	if u, p := tab.Len(); u != 1 || p != 2 {
		t.Errorf("left %d+%d, want the message and 2 receives", u, p)
	}
	if got := tab.RemoveSource(1, AnySource); !slices.Equal(got, []string{"anysource"}) {
		t.Errorf("removed %q for AnySource, want the AnySource receive", got)
	}
}

func TestShardLayout(t *testing.T) {
	for name, size := range map[string]uintptr{
		"int,int":       unsafe.Sizeof(shard[int, int]{}),
		"string,[]byte": unsafe.Sizeof(shard[string, []byte]{}),
		"layout+pad":    unsafe.Sizeof(shardLayout{}) + shardPad,
	} {
		if size%cacheLine != 0 || size != unsafe.Sizeof(shard[int, int]{}) {
			t.Errorf("shard[%s] is %d bytes: want a common multiple of %d", name, size, cacheLine)
		}
	}
	var tab Table[int, int]
	if d := unsafe.Offsetof(tab.arrivals) - unsafe.Offsetof(tab.clock); d < cacheLine {
		t.Errorf("arrivals %d bytes from clock: want a line apart", d)
	}
}

// TestSteadyStateAllocs checks that matched pairs on ever new tags reuse
// nodes and map slots, and that a burst of keys is given back.
func TestSteadyStateAllocs(t *testing.T) {
	tab := New[int, int](Config{Shards: 4})
	tag := int32(0)
	pair := func() {
		k := Key{Tag: tag}
		tag++
		tab.Post(k, 1)
		tab.Arrive(k, 2)
		tab.Arrive(k, 3)
		tab.Post(k, 4)
	}
	for range 1000 {
		pair()
	}
	if a := testing.AllocsPerRun(10000, pair); a > 0.01 {
		t.Errorf("%.3f allocations per pair of matches", a)
	}
	burst(tab, 50000)
	for i := range tab.shards {
		// At most a quarter of the smallest table stays, empty, for the
		// keys used last (index.release).
		if s := &tab.shards[i]; len(s.keys.slots) != minSlots || s.keys.used > minSlots/4 {
			t.Errorf("shard %d keeps %d slots (%d used) after the burst drained", i, len(s.keys.slots), s.keys.used)
		}
		for _, sl := range tab.shards[i].keys.slots {
			if !sl.empty() {
				t.Errorf("shard %d holds %v after the burst drained", i, sl.key)
			}
		}
	}
}

// burst posts n receives on distinct tags, then matches them all.
func burst(tab *Table[int, int], n int) {
	for i := range n {
		tab.Post(Key{Comm: 9, Tag: int32(i)}, i)
	}
	for i := range n {
		tab.Arrive(Key{Comm: 9, Tag: int32(i)}, i)
	}
}
