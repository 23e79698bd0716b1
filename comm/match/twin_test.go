package match

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// matcher is what Table and Ref have in common, instantiated for tests:
// messages and receives are int ids.
type matcher interface {
	Arrive(k Key, m int) (int, bool, error)
	Take(k Key) (int, bool, error)
	TakeN(k Key, out []int) (int, error)
	Post(k Key, r int) (int, bool, error)
	Probe(k Key) (int, Key, bool)
	Cancel(k Key, match func(int) bool) bool
	RemoveSource(comm uint32, src int32) []int
	Len() (int, int)
}

// Operation kinds in a twin run.
const (
	opArrive = 1 + iota
	opPost
	opProbe
	opCancel
	opRemove
	opBadArrive
	opTake
	opTakeN
)

// op is one step of a twin run.
type op struct {
	kind int
	key  Key
	arg  int // Cancel: accept receives whose id is not ≡ arg mod 3
}

// decodeOps turns bytes, three per op, into operations on two
// communicators, three sources and three tags, so that keys collide and
// wildcards often have several candidates. Random and fuzz tests share it.
func decodeOps(data []byte) []op {
	var ops []op
	for ; len(data) >= 3; data = data[3:] {
		b0, b1, b2 := data[0], data[1], data[2]
		o := op{key: Key{Comm: uint32(b0 >> 7), Source: field(b1), Tag: field(b2)}, arg: int(b1 >> 4)}
		switch c := b0 & 15; {
		case c < 6:
			o.kind = opArrive
			if c == 5 {
				o.kind = opTake
			}
			if c == 4 && b1&1 == 1 {
				o.kind = opTakeN
			}
			o.key.Source, o.key.Tag = max(o.key.Source, 0), max(o.key.Tag, 0)
		case c < 12:
			o.kind = opPost
		default:
			o.kind = []int{opProbe, opCancel, opRemove, opBadArrive}[c-12]
		}
		ops = append(ops, o)
	}
	return ops
}

// field maps a byte to a source or tag: mostly 0..2 or the wildcard, and
// rarely the invalid -2.
func field(b byte) int32 {
	if b == 255 {
		return -2
	}
	return int32(b%4) - 1
}

// runTwin applies ops to a and b and describes the first difference.
func runTwin(a, b matcher, ops []op) string {
	for i, o := range ops {
		ra, rb := apply(a, o, i), apply(b, o, i)
		if ra != rb {
			return fmt.Sprintf("op %d (%d on %v): table %s, twin %s", i, o.kind, o.key, ra, rb)
		}
		ua, pa := a.Len()
		ub, pb := b.Len()
		if ua != ub || pa != pb {
			return fmt.Sprintf("after op %d: table holds %d+%d, twin %d+%d", i, ua, pa, ub, pb)
		}
	}
	return ""
}

// apply runs o with id as the message or receive, and formats the result.
func apply(t matcher, o op, id int) string {
	switch o.kind {
	case opArrive, opBadArrive:
		r, ok, err := t.Arrive(o.key, id)
		return fmt.Sprint(r, ok, err)
	case opTake:
		r, ok, err := t.Take(o.key)
		return fmt.Sprint(r, ok, err)
	case opTakeN:
		out := make([]int, 1+o.arg%4)
		n, err := t.TakeN(o.key, out)
		return fmt.Sprint(out[:n], err)
	case opPost:
		if tab, isTable := t.(*Table[int, int]); isTable && id%2 == 1 && !o.key.Wild() && checkReceive(o.key) == nil {
			m, ok := tab.PostExact(o.key, id) // half the valid exact posts: Post's twin too
			return fmt.Sprint(m, ok, nil)
		}
		m, ok, err := t.Post(o.key, id)
		return fmt.Sprint(m, ok, err)
	case opProbe:
		m, k, ok := t.Probe(o.key)
		return fmt.Sprint(m, k, ok)
	case opCancel:
		return fmt.Sprint(t.Cancel(o.key, func(r int) bool { return r%3 != o.arg%3 }))
	default:
		removed := t.RemoveSource(o.key.Comm, o.key.Source)
		slices.Sort(removed) // Table returns them in no particular order
		return fmt.Sprint(removed)
	}
}

func TestTwinRandom(t *testing.T) {
	runs, length := 400, 300
	if testing.Short() {
		runs = 100
	}
	for run := range runs {
		rng := rand.New(rand.NewPCG(uint64(run), 7))
		data := make([]byte, 3*(1+rng.IntN(length)))
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		shards := 1 << (run % 9)
		tab := New[int, int](Config{Shards: shards})
		if run%3 == 2 {
			tab.SetSerial() // the same operations without locks
		}
		if d := runTwin(tab, NewRef[int, int](), decodeOps(data)); d != "" {
			t.Fatalf("run %d, %d shards, serial %v: %s", run, shards, tab.serial, d)
		}
	}
}

func FuzzTwin(f *testing.F) {
	f.Add([]byte{0, 2, 2, 6, 3, 1, 0, 1, 1, 7, 2, 3})
	f.Add([]byte{6, 3, 3, 0, 1, 2, 0, 2, 1, 14, 1, 0, 13, 3, 3})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, shards := range []int{1, 8} {
			tab := New[int, int](Config{Shards: shards})
			if d := runTwin(tab, NewRef[int, int](), decodeOps(data)); d != "" {
				t.Fatalf("%d shards: %s", shards, d)
			}
		}
	})
}

// TestSerialTakesNoLocks holds every lock of a serial table and runs
// every kind of operation on it: with a lock taken anywhere, it would
// hang instead of finishing.
func TestSerialTakesNoLocks(t *testing.T) {
	tab := New[int, int](Config{Shards: 4})
	tab.SetSerial()
	for i := range tab.shards {
		tab.shards[i].mu.Lock()
	}
	tab.wmu.Lock()
	done := make(chan string)
	go func() {
		rng := rand.New(rand.NewPCG(1, 2))
		data := make([]byte, 3*500)
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		done <- runTwin(tab, NewRef[int, int](), decodeOps(data))
	}()
	select {
	case d := <-done:
		if d != "" {
			t.Fatal(d)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a serial table took a lock")
	}
}
