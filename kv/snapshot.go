package kv

import (
	"encoding/binary"
	"fmt"
	"maps"
	"slices"

	"github.com/plexus-hpc/plexus/agree"
	"github.com/plexus-hpc/plexus/internal/wire"
)

// Snapshot returns the store's state as bytes that Restore reads: the
// map and every client's latest Set result, keys and clients in order,
// so that replicas at the same slot make the same bytes.
func (s *Store) Snapshot() []byte {
	var b []byte
	b = binary.AppendUvarint(b, uint64(len(s.data)))
	for _, k := range slices.Sorted(maps.Keys(s.data)) {
		b = wire.AppendBytes(b, []byte(k))
		b = wire.AppendBytes(b, s.data[k])
	}
	b = binary.AppendUvarint(b, uint64(len(s.last)))
	for _, c := range slices.Sorted(maps.Keys(s.last)) {
		r := s.last[c]
		for _, x := range []uint64{c, r.Seq, r.Slot} {
			b = binary.AppendUvarint(b, x)
		}
		b = wire.AppendBytes(b, r.Prev)
	}
	return b
}

// Restore replaces the store's state by snap, taken by Snapshot at
// slot snap.Index. Bytes that are not a snapshot give ErrBadMessage and
// leave the store unchanged.
func (s *Store) Restore(snap agree.Snapshot) error {
	d := wire.NewReader(snap.Data, ErrBadMessage)
	data := map[string][]byte{}
	for range count(&d, "keys") {
		k := d.Bytes("key")
		data[string(k)] = d.Bytes("value")
	}
	last := map[uint64]Result{}
	for range count(&d, "clients") {
		c := d.Uvarint()
		last[c] = Result{Seq: d.Uvarint(), Slot: d.Uvarint(), Prev: d.Bytes("previous value")}
	}
	if err := d.Done("snapshot"); err != nil {
		return fmt.Errorf("%w (snapshot of slot %d, %d bytes)", err, snap.Index, len(snap.Data))
	}
	s.data, s.last, s.applied = data, last, snap.Index
	return nil
}

// count reads a count of items that take at least one byte each.
func count(d *wire.Reader, what string) uint64 {
	n := d.Uvarint()
	if n > uint64(d.Len()) {
		d.Fail("%d %s in %d bytes", n, what, d.Len())
		return 0
	}
	return n
}
