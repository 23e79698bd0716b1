package agree

import (
	"cmp"
	"slices"
)

// settledValues holds a replica's own values that are learned but not
// yet handed out in Ready, in slot order: a snapshot that skips their
// slot puts them back in own (see Node.unsettle). They are few (the
// replica's clients' requests in flight) and spread over the slots, so
// a short sorted slice serves them better than a table by slot; they are
// learned and handed out mostly in slot order, so adding appends and
// handing out cuts a prefix.
type settledValues []Entry

// add records v as learned in slot s.
func (sv *settledValues) add(s uint64, v []byte) {
	if k := len(*sv); k == 0 || (*sv)[k-1].Slot < s {
		*sv = append(*sv, Entry{Slot: s, Value: v})
		return
	}
	i, _ := slices.BinarySearchFunc(*sv, s, func(e Entry, s uint64) int { return cmp.Compare(e.Slot, s) })
	*sv = slices.Insert(*sv, i, Entry{Slot: s, Value: v})
}

// upTo returns how many of the values are in slots up to upto: the
// first ones.
func (sv settledValues) upTo(upto uint64) int {
	i, _ := slices.BinarySearchFunc(sv, upto+1, func(e Entry, s uint64) int { return cmp.Compare(e.Slot, s) })
	return i
}

// drop removes the first k values.
func (sv *settledValues) drop(k int) {
	if k == len(*sv) {
		clear(*sv)
		*sv = (*sv)[:0]
		return
	}
	*sv = slices.Delete(*sv, 0, k)
}
