package agree

import (
	"fmt"
	"maps"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestOwnValuesTwin drives ownValues with a key that collides often (the
// value's length mod 3) and a plain map of the values (the reference)
// with the same random adds and takes, and compares what each holds
// after every step: no value is lost or doubled by a collision.
func TestOwnValuesTwin(t *testing.T) {
	weak := func(v []byte) uint64 { return uint64(len(v) % 3) }
	for seed := range uint64(20) {
		rnd := rand.New(rand.NewPCG(seed, 3))
		var o ownValues
		ref := map[string]int64{}
		for step := range 500 {
			v := []byte(fmt.Sprint(rnd.IntN(30)))[:1+rnd.IntN(2)]
			if rnd.IntN(2) == 0 {
				o.addKeyed(weak(v), v, int64(step))
				ref[string(v)] = int64(step)
			} else {
				_, had := ref[string(v)]
				delete(ref, string(v))
				if got := o.takeKeyed(weak(v), v); got != had {
					t.Fatalf("seed %d step %d: take %q = %v, want %v", seed, step, v, got, had)
				}
			}
			got := map[string]int64{}
			o.each(func(v []byte, sent *int64) {
				if _, dup := got[string(v)]; dup {
					t.Fatalf("seed %d step %d: %q held twice", seed, step, v)
				}
				got[string(v)] = *sent
			})
			if !maps.Equal(got, ref) || o.size() != len(ref) {
				t.Fatalf("seed %d step %d: holds %v (size %d), want %v", seed, step, got, o.size(), ref)
			}
		}
	}
}

// TestOwnValuesOrder: each walks the values in the same order however
// they were added, and a change through its pointer sticks.
func TestOwnValuesOrder(t *testing.T) {
	vs := benchValues(50)
	var a, b ownValues
	for i := range vs {
		a.add(vs[i], 1)
		b.add(vs[len(vs)-1-i], 1)
	}
	var wa, wb [][]byte
	a.each(func(v []byte, sent *int64) { wa = append(wa, v); *sent = 7 })
	b.each(func(v []byte, _ *int64) { wb = append(wb, v) })
	if !slices.EqualFunc(wa, wb, func(x, y []byte) bool { return string(x) == string(y) }) {
		t.Error("two replicas holding the same values walk them in different orders")
	}
	a.each(func(_ []byte, sent *int64) {
		if *sent != 7 {
			t.Fatalf("sent = %d after setting it to 7", *sent)
		}
	})
}
