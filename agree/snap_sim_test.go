package agree

import (
	"encoding/binary"
	"fmt"
)

// The sim's application state is the list of entries a replica applied;
// its snapshot is that list encoded, so that an installed snapshot is
// checked slot by slot against the chosen values (S3).

func encodeApplied(es []Entry) []byte {
	var b []byte
	for _, e := range es {
		if e.Value == nil {
			b = append(b, 0)
			continue
		}
		b = append(b, 1)
		b = binary.AppendUvarint(b, uint64(len(e.Value)))
		b = append(b, e.Value...)
	}
	return b
}

func decodeApplied(b []byte) ([]Entry, error) {
	var es []Entry
	for len(b) > 0 {
		e := Entry{Slot: uint64(len(es)) + 1}
		flag := b[0]
		b = b[1:]
		if flag == 1 {
			l, n := binary.Uvarint(b)
			if n <= 0 || l > uint64(len(b)-n) {
				return nil, fmt.Errorf("snapshot entry %d unreadable", e.Slot)
			}
			e.Value = append([]byte{}, b[n:n+int(l)]...)
			b = b[n+int(l):]
		}
		es = append(es, e)
	}
	return es, nil
}

// checkSnapshot checks an installed snapshot (S3: it holds the chosen
// value of every slot, the no-ops included, and it is ahead of what the
// replica applied) and makes it the replica's applied list.
func (s *sim) checkSnapshot(id int, snap Snapshot) {
	es, err := decodeApplied(snap.Data)
	if err != nil || uint64(len(es)) != snap.Index {
		s.t.Fatalf("S3: replica %d installed a snapshot at %d holding %d entries (%v)", id, snap.Index, len(es), err)
	}
	if snap.Index <= uint64(len(s.applied[id])) {
		s.t.Fatalf("S3: replica %d installed a snapshot at %d after applying %d", id, snap.Index, len(s.applied[id]))
	}
	for _, e := range es {
		if v, ok := s.chosen[e.Slot]; ok && !sameValue(v, e.Value) {
			s.t.Fatalf("S3: replica %d installed %q in slot %d, chosen was %q", id, e.Value, e.Slot, v)
		}
		if e.Value != nil && !s.proposed[string(e.Value)] {
			s.t.Fatalf("S4: replica %d installed %q, never proposed", id, e.Value)
		}
		s.chosen[e.Slot] = e.Value
	}
	s.applied[id] = es
}

// maybeCompact snapshots replica id when it applied s.compact slots
// since its last snapshot.
func (s *sim) maybeCompact(id int) {
	n := s.nodes[id]
	applied := uint64(len(s.applied[id]))
	if s.compact == 0 || applied < n.snap.Index+s.compact {
		return
	}
	if err := n.Compact(applied, encodeApplied(s.applied[id])); err != nil {
		s.t.Fatalf("replica %d: %v", id, err)
	}
}

// restart replaces replica id by a restarted one with empty state, as a
// process that lost its memory: it keeps only its id.
func (s *sim) restart(id int) {
	n, err := New(Config{ID: id, Replicas: len(s.nodes), Seed: s.seed + 7, Restarted: true})
	if err != nil {
		s.t.Fatal(err)
	}
	s.nodes[id], s.up[id], s.applied[id] = n, true, nil
	s.collect(id)
}

// recovering reports whether a live replica is still recovering or may
// not vote in the next choice.
func (s *sim) recovering() bool {
	for id, n := range s.nodes {
		if s.up[id] && (n.Status().Recovering || n.view.Epoch+1 <= n.mute) {
			return true
		}
	}
	return false
}
