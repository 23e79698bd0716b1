package agree

import (
	"bytes"
	"cmp"
	"maps"
	"slices"
)

// ownValues holds a replica's own undecided values, each with when it
// was last sent to the leader. Every replica with clients looks up
// every value it learns here, so values are found by their 64-bit key
// (valueKey) rather than hashed as strings, and adding one copies
// nothing. A value whose key another value here holds goes to clash,
// by its bytes: no value is ever lost to a collision.
//
// Invariants: a value is in byKey (under its key) or in clash, never
// both; no two entries hold equal values.
type ownValues struct {
	byKey map[uint64]ownValue
	clash map[string]int64
}

type ownValue struct {
	value []byte
	sent  int64
}

// add records v as sent at when (again, if it is here).
func (o *ownValues) add(v []byte, when int64) { o.addKeyed(valueKey(v), v, when) }

// take removes v and reports whether it was here.
func (o *ownValues) take(v []byte) bool { return o.takeKeyed(valueKey(v), v) }

// addKeyed is add with v's key k (tests force collisions through it).
func (o *ownValues) addKeyed(k uint64, v []byte, when int64) {
	if e, ok := o.byKey[k]; ok && !bytes.Equal(e.value, v) {
		if o.clash == nil {
			o.clash = map[string]int64{}
		}
		o.clash[string(v)] = when
		return
	}
	if _, ok := o.clash[string(v)]; ok { // here already, its key once taken
		o.clash[string(v)] = when
		return
	}
	if o.byKey == nil {
		o.byKey = map[uint64]ownValue{}
	}
	if e, ok := o.byKey[k]; ok {
		v = e.value
	}
	o.byKey[k] = ownValue{value: v, sent: when}
}

// takeKeyed is take with v's key k.
func (o *ownValues) takeKeyed(k uint64, v []byte) bool {
	if e, ok := o.byKey[k]; ok && bytes.Equal(e.value, v) {
		delete(o.byKey, k)
		return true
	}
	if _, ok := o.clash[string(v)]; ok {
		delete(o.clash, string(v))
		return true
	}
	return false
}

// size returns the number of values.
func (o *ownValues) size() int { return len(o.byKey) + len(o.clash) }

// each calls f with every value and a pointer to when it was sent,
// which f may change, in an order that depends only on the values (a
// replica's behaviour depends only on its inputs and seed).
func (o *ownValues) each(f func(v []byte, sent *int64)) {
	for _, k := range slices.Sorted(maps.Keys(o.byKey)) {
		e := o.byKey[k]
		f(e.value, &e.sent)
		o.byKey[k] = e
	}
	for _, s := range slices.SortedFunc(maps.Keys(o.clash), cmp.Compare[string]) {
		when := o.clash[s]
		f([]byte(s), &when)
		o.clash[s] = when
	}
}
