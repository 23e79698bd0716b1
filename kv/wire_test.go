package kv

import (
	"errors"
	"reflect"
	"testing"

	"github.com/plexus-hpc/plexus/agree"
)

func TestWireRoundTrip(t *testing.T) {
	req := Request{Op: OpSet, Client: 1 << 40, Seq: 7, MinSlot: 99, ReplyTag: 1<<20 + 3, Key: []byte("12345678"), Value: []byte{}}
	b, _ := req.AppendBinary(nil)
	var got Request
	if err := got.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(got, req) {
		t.Fatalf("request round trip: %+v, %v", got, err)
	}
	for cut := range len(b) {
		if err := new(Request).UnmarshalBinary(b[:cut]); !errors.Is(err, ErrBadMessage) {
			t.Errorf("request cut to %d: %v", cut, err)
		}
	}
	resp := Response{Client: 3, Seq: 4, Slot: 5}
	b, _ = resp.AppendBinary(nil)
	var r Response
	if err := r.UnmarshalBinary(b); err != nil || !reflect.DeepEqual(r, resp) {
		t.Fatalf("response round trip: %+v, %v", r, err)
	}
}

// TestStoreDedup applies a Set twice (decided in two slots after a
// failover) and a no-op: the second changes nothing.
func TestStoreDedup(t *testing.T) {
	s := NewStore()
	cmd := appendCommand(nil, Request{Client: 9, Seq: 1, Key: []byte("k"), Value: []byte("a")})
	s.Apply(agree.Entry{Slot: 1, Value: cmd})
	s.Apply(agree.Entry{Slot: 2})
	cmd2 := appendCommand(nil, Request{Client: 8, Seq: 1, Key: []byte("k"), Value: []byte("b")})
	s.Apply(agree.Entry{Slot: 3, Value: cmd2})
	s.Apply(agree.Entry{Slot: 4, Value: cmd})
	if v, slot := s.Get([]byte("k")); string(v) != "b" || slot != 4 {
		t.Errorf("Get = %q at %d, want b at 4", v, slot)
	}
	if r, _ := s.Last(9); r.Slot != 1 || r.Prev != nil {
		t.Errorf("client 9's result %+v, want slot 1, no previous value", r)
	}
}

func FuzzRequest(f *testing.F) {
	b, _ := Request{Op: OpGet, Key: []byte("k")}.AppendBinary(nil)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Request
		if r.UnmarshalBinary(b) == nil {
			s := NewStore()
			s.Apply(agree.Entry{Slot: 1, Value: appendCommand(nil, r)})
		}
	})
}
