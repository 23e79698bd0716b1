package group

import (
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
		if _, ok := decodeSimple(b); ok {
			fast++
		}
		checkTwin(t, b)
	}
	if fast < 5000 {
		t.Errorf("the fast path took %d of 20000 messages: the normal case should be most of them", fast)
	}
}

func checkTwin(t *testing.T, b []byte) {
	t.Helper()
	var want agree.Message
	wantErr := want.UnmarshalBinary(b)
	got, err := decodeMessage(b)
	if (err != nil) != (wantErr != nil) || (err == nil && !reflect.DeepEqual(got, want)) {
		t.Fatalf("% x: fast %+v, %v; reference %+v, %v", b, got, err, want, wantErr)
	}
}

// randomMessage is a message of the normal case three times in four,
// else one with entries, a snapshot or a view.
func randomMessage(rnd *rand.Rand) agree.Message {
	num := func() uint64 { return rnd.Uint64() >> rnd.IntN(64) }
	m := agree.Message{Type: agree.Type(1 + rnd.IntN(15)), From: rnd.IntN(20), To: rnd.IntN(21) - 1,
		Epoch: num(), Slot: num(), Ballot: agree.Ballot{Round: num(), ID: rnd.IntN(20)}, Voted: agree.Ballot{Round: num(), ID: rnd.IntN(20)}}
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
	f, err := encodeFrame(nil, frameTree, 1, []agree.Message{{Type: agree.Accept, From: 1, To: agree.All, Epoch: 1, Slot: 123456, Value: make([]byte, 16)}})
	if err != nil {
		b.Fatal(err)
	}
	var ms []agree.Message
	b.ReportAllocs()
	b.SetBytes(int64(len(f)))
	for range b.N {
		if ms, err = decodeFrameInto(ms[:0], f); err != nil {
			b.Fatal(err)
		}
	}
}
