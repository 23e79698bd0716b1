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
			if m.kind == kindPost {
				m.call = 0 // a Post carries no call number
			}
			if rng.IntN(2) == 0 { // small values take the varints' one-byte form
				m.handler, m.call = m.handler%200, m.call%200
			}
			for i := range m.payload {
				m.payload[i] = byte(rng.Uint32())
			}
			in = append(in, m)
			before := len(p)
			p = appendMessage(p, m)
			if got := len(p) - before; got != headerLen(m)+len(m.payload) {
				t.Fatalf("message %+v took %d bytes, headerLen says %d+%d", m, got, headerLen(m), len(m.payload))
			}
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

// TestPostHeader: a 32-byte Post to a small handler ID takes 3 bytes of
// header, the size the format is for.
func TestPostHeader(t *testing.T) {
	m := message{kind: kindPost, handler: 5, payload: make([]byte, 32)}
	if got := len(appendMessage(nil, m)); got != 35 {
		t.Errorf("a 32-byte Post takes %d bytes, want 35", got)
	}
}

// FuzzNextMessage feeds arbitrary packets to the decoder: it errors or
// makes progress, never panics or loops; skipRequests stops where
// nextMessage first finds an error or something other than a request.
func FuzzNextMessage(f *testing.F) {
	f.Add(appendMessage(nil, message{kind: kindCall, handler: 3, call: 9, payload: []byte("abc")}))
	f.Add([]byte{1, 2, 3})
	f.Add(appendMessage(appendMessage(nil, message{kind: kindPost, handler: 300, payload: []byte("a")}),
		message{kind: kindReply, call: 1 << 40}))
	f.Fuzz(func(t *testing.T, p []byte) {
		skip, requests := skipRequests(p), 0
		for len(p) > 0 {
			m, rest, err := nextMessage(p)
			if err != nil || (m.kind != kindPost && m.kind != kindCall) {
				break
			}
			if len(rest) >= len(p) {
				t.Fatalf("no progress: %d bytes then %d", len(p), len(rest))
			}
			requests += len(p) - len(rest)
			p = rest
		}
		if skip != requests {
			t.Fatalf("skipRequests skipped %d bytes, nextMessage found %d bytes of requests", skip, requests)
		}
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
