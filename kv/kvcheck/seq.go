package kvcheck

import (
	"cmp"
	"fmt"
	"slices"
)

// CheckGets checks that the Gets of ops are sequentially consistent with
// the acknowledged Sets, taking the slots as the witness order: every
// operation sits at the slot its response reported (a Get after the Set
// of that slot), each client's slots never go down, and a Get at slot s
// reads the value of the last acknowledged Set of its key at or before
// s (or of a Set that failed, whose slot is unknown).
func CheckGets(ops []Op) error {
	sets := map[string]Op{} // by value
	byKey := map[string][]Op{}
	for _, op := range ops {
		if op.Kind == Set {
			sets[string(op.Value)] = op
			if !op.Failed {
				byKey[string(op.Key)] = append(byKey[string(op.Key)], op)
			}
		}
	}
	for k := range byKey {
		slices.SortFunc(byKey[k], func(a, b Op) int { return cmp.Compare(a.Slot, b.Slot) })
	}
	for _, op := range ops {
		if op.Kind == Get && !op.Failed {
			if err := checkGet(op, sets, byKey[string(op.Key)]); err != nil {
				return err
			}
		}
	}
	return checkSessions(ops)
}

func checkGet(op Op, sets map[string]Op, keySets []Op) error {
	var latest *Op // the last acknowledged Set of the key at or before op.Slot
	for i := range keySets {
		if keySets[i].Slot <= op.Slot {
			latest = &keySets[i]
		}
	}
	if op.Out == nil {
		if latest != nil {
			return fmt.Errorf("%w: client %d read no value of %q at slot %d, after the Set of slot %d",
				ErrViolation, op.Client, op.Key, op.Slot, latest.Slot)
		}
		return nil
	}
	w, ok := sets[string(op.Out)]
	switch {
	case !ok:
		return fmt.Errorf("%w: client %d read %q from %q, which no Set wrote", ErrViolation, op.Client, op.Out, op.Key)
	case w.Failed:
		return nil // its slot is unknown
	case latest == nil || latest.Slot != w.Slot:
		return fmt.Errorf("%w: client %d read the Set of slot %d of %q at slot %d, not the latest one",
			ErrViolation, op.Client, w.Slot, op.Key, op.Slot)
	}
	return nil
}

// checkSessions checks that each client's answered operations, in the
// order it made them (by call time), report slots that never go down.
func checkSessions(ops []Op) error {
	by := map[int][]Op{}
	for _, op := range ops {
		if !op.Failed {
			by[op.Client] = append(by[op.Client], op)
		}
	}
	for c, s := range by {
		slices.SortFunc(s, func(a, b Op) int { return cmp.Compare(a.Call, b.Call) })
		for i := 1; i < len(s); i++ {
			if s[i].Slot < s[i-1].Slot {
				return fmt.Errorf("%w: client %d saw slot %d after slot %d", ErrViolation, c, s[i].Slot, s[i-1].Slot)
			}
		}
	}
	return nil
}
