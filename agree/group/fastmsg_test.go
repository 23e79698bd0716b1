package group

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/plexus-hpc/plexus/agree"
)

// TestDecodeMessageTwin checks the fast decoder against agree's own
// (the reference): on the encodings of random messages of every shape,
// and on those encodings with random bytes changed, both give the same
// message or both an error, and the fast path takes the normal case.
func TestDecodeMessageTwin(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 7))
	fast := 0
	for i := range 20000 {
		b, err := randomMessage(rnd).AppendBinary(nil)
		if err != nil {
			t.Fatal(err)
		}
		if i%2 == 1 {
			for range 1 + rnd.IntN(3) {
				b[rnd.IntN(len(b))] = byte(rnd.Uint32())
			}
		}
		if decodeSimple(new(agree.Message), b, nil) {
			fast++
		}
		checkTwin(t, b)
	}
	if fast < 5000 {
		t.Errorf("the fast path took %d of 20000 messages: the normal case should be most of them", fast)
	}
}

// TestAppendMessageTwin: the fast encoder writes AppendBinary's bytes
// for messages of every shape.
func TestAppendMessageTwin(t *testing.T) {
	rnd := rand.New(rand.NewPCG(21, 8))
	for range 20000 {
		m := randomMessage(rnd)
		if rnd.IntN(10) == 0 {
			m.Type = agree.Type(rnd.IntN(256)) // types no replica sends
		}
		want, werr := m.AppendBinary([]byte{7})
		got, err := appendMessage([]byte{7}, &m)
		if !bytes.Equal(got, want) || (err != nil) != (werr != nil) {
			t.Fatalf("%v: fast % x, %v; reference % x, %v", m, got, err, want, werr)
		}
	}
}

func checkTwin(t *testing.T, b []byte) {
	t.Helper()
	var want agree.Message
	wantErr := want.UnmarshalBinary(b)
	for _, sl := range []*slab{nil, {}} {
		got, err := decodeMessage(b, sl)
		if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(got, want)) {
			t.Fatalf("% x (slab %v): fast %+v, %v; reference %+v, %v", b, sl != nil, got, err, want, wantErr)
		}
		// A variable reused from an earlier message is overwritten whole.
		reused := agree.Message{Type: agree.Promise, Ballot: agree.Ballot{Round: 3}, Entries: []agree.Entry{{Slot: 1}}, View: &agree.View{}}
		if err := decodeInto(&reused, b, sl); err == nil && !reflect.DeepEqual(reused, want) {
			t.Fatalf("% x (slab %v): decoded over an earlier message %+v, want %+v", b, sl != nil, reused, want)
		}
	}
}

// randomMessage is a message of the normal case more than half the
// time, else one with ballots, entries, a snapshot or a view.
func randomMessage(rnd *rand.Rand) agree.Message {
	num := func() uint64 { return rnd.Uint64() >> rnd.IntN(64) }
	m := agree.Message{Type: agree.Type(1 + rnd.IntN(15)), From: rnd.IntN(20), To: rnd.IntN(21) - 1,
		Epoch: num(), Slot: num()}
	if rnd.IntN(4) == 0 {
		m.Ballot, m.Voted = agree.Ballot{Round: num(), ID: rnd.IntN(20)}, agree.Ballot{Round: num(), ID: rnd.IntN(20)}
	}
	switch rnd.IntN(3) {
	case 0:
		m.Value = make([]byte, rnd.IntN(300))
	case 1:
		m.Value = []byte{}
	}
	switch rnd.IntN(12) {
	case 0:
		m.Entries = []agree.Entry{{Slot: num(), Value: []byte("e")}}
	case 1:
		m.Snap = &agree.Snapshot{Index: num(), Data: []byte("s")}
	case 2:
		m.View = &agree.View{Epoch: num(), Leader: 1}
	}
	return m
}

func FuzzDecodeMessage(f *testing.F) {
	for _, m := range []agree.Message{{Type: agree.Accept, From: 1, To: agree.All, Epoch: 1, Slot: 9, Value: []byte("v")},
		{Type: agree.Heartbeat, From: 0, To: 3}} {
		b, _ := m.AppendBinary(nil)
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkTwin(t, b) })
}

func BenchmarkDecodeFrame(b *testing.B) {
	for _, slabbed := range []bool{false, true} {
		b.Run(fmt.Sprintf("slab=%v", slabbed), func(b *testing.B) { benchDecode(b, slabbed) })
	}
}

func benchDecode(b *testing.B, slabbed bool) {
	f, err := encodeFrame(nil, frameTree, 1, []agree.Message{{Type: agree.Accept, From: 1, To: agree.All, Epoch: 1, Slot: 123456, Value: make([]byte, 16)}})
	if err != nil {
		b.Fatal(err)
	}
	var ms []agree.Message
	var sl *slab
	if slabbed {
		sl = &slab{}
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(f)))
	for range b.N {
		if ms, err = decodeFrameInto(ms[:0], f, sl); err != nil {
			b.Fatal(err)
		}
	}
}

// TestSlab: copies from a slab equal their values, do not overlap (an
// append to one leaves the next alone), share a block until it is full,
// and long values are allocated apart.
func TestSlab(t *testing.T) {
	var sl slab
	var got [][]byte
	for i := range 200 {
		v := bytes.Repeat([]byte{byte(i)}, i%40)
		c := sl.copy(v)
		if !bytes.Equal(c, v) || cap(c) != len(c) {
			t.Fatalf("copy %d: % x (cap %d), want % x with capacity its length", i, c, cap(c), v)
		}
		got = append(got, c)
	}
	_ = append(got[10], 0xff) // must reallocate, not write over got[11]
	for i, c := range got {
		if !bytes.Equal(c, bytes.Repeat([]byte{byte(i)}, i%40)) {
			t.Fatalf("copy %d changed to % x", i, c)
		}
	}
	if long := sl.copy(make([]byte, slabMax+1)); cap(sl.block) != slabBlock || &long[0] == &sl.block[:1][0] {
		t.Error("a long value was carved from the block")
	}
	if (*slab)(nil).copy([]byte("x"))[0] != 'x' {
		t.Error("a nil slab does not copy")
	}
	if (&slab{}).copy([]byte{}) == nil {
		t.Error("an empty value copied to nil, a no-op")
	}
}
