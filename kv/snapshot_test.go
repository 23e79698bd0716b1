package kv

import (
	"bytes"
	"errors"
	"testing"

	"github.com/plexus-hpc/plexus/agree"
)

func TestSnapshotRoundTrip(t *testing.T) {
	a := NewStore()
	for i, r := range []Request{
		{Client: 1, Seq: 1, Key: []byte("k1"), Value: []byte("a")},
		{Client: 2, Seq: 1, Key: []byte("k2"), Value: []byte("b")},
		{Client: 1, Seq: 2, Key: []byte("k1"), Value: []byte("c")},
	} {
		a.Apply(agree.Entry{Slot: uint64(i) + 1, Value: appendCommand(nil, r)})
	}
	snap := agree.Snapshot{Index: a.Applied(), Data: a.Snapshot()}
	b := NewStore()
	if err := b.Restore(snap); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Snapshot(), snap.Data) || b.Applied() != 3 {
		t.Fatalf("restored store differs: applied %d", b.Applied())
	}
	if v, _ := b.Get([]byte("k1")); string(v) != "c" {
		t.Errorf("k1 = %q, want c", v)
	}
	// A Set decided again after the snapshot is applied once: the
	// client's result travels in the snapshot.
	b.Apply(agree.Entry{Slot: 4, Value: appendCommand(nil, Request{Client: 1, Seq: 2, Key: []byte("k1"), Value: []byte("c")})})
	if r, _ := b.Last(1); r.Slot != 3 || string(r.Prev) != "a" {
		t.Errorf("client 1's result %+v, want slot 3 replacing a", r)
	}
}

func TestSnapshotBadBytes(t *testing.T) {
	s := NewStore()
	s.Apply(agree.Entry{Slot: 1, Value: appendCommand(nil, Request{Client: 1, Seq: 1, Key: []byte("k"), Value: []byte("v")})})
	data := s.Snapshot()
	for cut := range len(data) {
		fresh := NewStore()
		if err := fresh.Restore(agree.Snapshot{Index: 1, Data: data[:cut]}); !errors.Is(err, ErrBadMessage) {
			t.Errorf("snapshot cut to %d of %d bytes: %v, want ErrBadMessage", cut, len(data), err)
		}
		if fresh.Applied() != 0 {
			t.Errorf("a refused snapshot changed the store")
		}
	}
	huge := []byte{0xff, 0xff, 0xff, 0xff, 0x0f}
	if err := NewStore().Restore(agree.Snapshot{Data: huge}); !errors.Is(err, ErrBadMessage) {
		t.Errorf("a snapshot claiming 2^32 keys: %v, want ErrBadMessage", err)
	}
}
