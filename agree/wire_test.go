package agree

import (
	"errors"
	"reflect"
	"testing"
)

func wireSamples() []Message {
	log := []Entry{{Slot: 1, Value: []byte("a")}, {Slot: 2}, {Slot: 3, Value: []byte{}}}
	return []Message{
		{Type: Forward, From: 2, To: 0, Epoch: 1, Value: []byte("set k v")},
		{Type: Accept, From: 1, To: All, Epoch: 7, Slot: 1 << 40, Value: []byte{0}},
		{Type: Promise, From: 4, To: 3, Epoch: 9, Ballot: Ballot{Round: 3, ID: 3}, Voted: Ballot{Round: 2, ID: 1},
			View: &View{Epoch: 9, Leader: 1, Acceptor: 2, Base: 3, Log: log}, Entries: log},
		{Type: Heartbeat, From: 0, To: All, Epoch: 1, Slot: 5},
		{Type: Entries, From: 1, To: 2, Epoch: 3, Snap: &Snapshot{Index: 7, Data: []byte("state")},
			Entries: []Entry{{Slot: 8, Value: []byte("b")}}},
		{Type: Recovered, From: 0, To: 2, Epoch: 4, Slot: 9,
			View: &View{Epoch: 4, Leader: 0, Acceptor: 1, Base: 9, Snap: &Snapshot{Index: 6, Data: []byte{}}, Log: []Entry{{Slot: 7}, {Slot: 8}, {Slot: 9}}}},
	}
}

func TestWireRoundTrip(t *testing.T) {
	for _, m := range wireSamples() {
		b, err := m.AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		var got Message
		if err := got.UnmarshalBinary(b); err != nil {
			t.Fatalf("%v: %v", m, err)
		}
		if !reflect.DeepEqual(got, m) {
			t.Errorf("round trip of %v:\n got %#v\nwant %#v", m, got, m)
		}
		for cut := range len(b) {
			if err := new(Message).UnmarshalBinary(b[:cut]); !errors.Is(err, ErrMessage) {
				t.Errorf("%v cut to %d of %d bytes: %v, want ErrMessage", m, cut, len(b), err)
			}
		}
	}
}

// FuzzWire feeds arbitrary bytes to UnmarshalBinary and what decodes to
// Step: neither may panic, and what decodes must encode back the same.
func FuzzWire(f *testing.F) {
	for _, m := range wireSamples() {
		b, _ := m.AppendBinary(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var m Message
		if err := m.UnmarshalBinary(b); err != nil {
			return
		}
		again, _ := m.AppendBinary(nil)
		var m2 Message
		if err := m2.UnmarshalBinary(again); err != nil || !reflect.DeepEqual(m, m2) {
			t.Fatalf("re-encoding %v: %v", m, err)
		}
		n, _ := New(Config{ID: 0, Replicas: 3})
		_ = n.Step(m)
		n.Tick()
		n.Ready()
	})
}

// TestShortForm: the messages of the normal case take the short form
// (one byte per small number, no ballots or empty fields), the others
// the long one, and both decode to the message.
func TestShortForm(t *testing.T) {
	accept := Message{Type: Accept, From: 1, To: All, Epoch: 1, Slot: 1000, Value: make([]byte, 16)}
	b, _ := accept.AppendBinary(nil)
	if want := 1 + 3 + 2 + 1 + 16; len(b) != want || b[0] != byte(Accept)|shortForm {
		t.Errorf("a 16-byte accept took % x (%d bytes), want the short form in %d", b, len(b), want)
	}
	for _, m := range wireSamples() {
		b, _ := m.AppendBinary(nil)
		if short := b[0]&shortForm != 0; short != (m.Ballot == Ballot{} && m.Voted == Ballot{} && m.View == nil && m.Snap == nil && m.Entries == nil) {
			t.Errorf("%v: short form %v", m, short)
		}
	}
}
