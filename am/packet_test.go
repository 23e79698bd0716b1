package am

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestPacketRoundTrip packs random messages and unpacks them, property
// style: the same messages come out in the same order.
func TestPacketRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		var in []message
		var p []byte
		for range rng.IntN(20) {
			m := message{
				kind:    kind(1 + rng.IntN(4)),
				handler: ID(rng.Uint32()),
				call:    rng.Uint64(),
				payload: make([]byte, rng.IntN(100)),
			}
			for i := range m.payload {
				m.payload[i] = byte(rng.Uint32())
			}
			in = append(in, m)
			p = appendMessage(p, m)
		}
		out := unpackAll(t, p)
		if len(out) != len(in) {
			t.Fatalf("%d messages in, %d out", len(in), len(out))
		}
		for i := range in {
			a, b := in[i], out[i]
			if a.kind != b.kind || a.handler != b.handler || a.call != b.call || !bytes.Equal(a.payload, b.payload) {
				t.Fatalf("message %d: in %+v, out %+v", i, a, b)
			}
		}
	}
}

func unpackAll(t *testing.T, p []byte) []message {
	t.Helper()
	var out []message
	for len(p) > 0 {
		m, rest, err := nextMessage(p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
		p = rest
	}
	return out
}

// FuzzNextMessage feeds arbitrary packets to the decoder: it errors or
// makes progress, never panics or loops.
func FuzzNextMessage(f *testing.F) {
	f.Add(appendMessage(nil, message{kind: kindCall, handler: 3, call: 9, payload: []byte("abc")}))
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, p []byte) {
		for len(p) > 0 {
			_, rest, err := nextMessage(p)
			if err != nil {
				return
			}
			if len(rest) >= len(p) {
				t.Fatalf("no progress: %d bytes then %d", len(p), len(rest))
			}
			p = rest
		}
	})
}
