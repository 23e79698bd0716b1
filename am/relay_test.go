package am

import (
	"bytes"
	"testing"
)

// TestEnvelope: a relayed message keeps its source, destination and
// inner message; envelopes naming ranks outside the world, holding stray
// bytes or another envelope are errors, not panics.
func TestEnvelope(t *testing.T) {
	in := message{kind: kindCall, handler: 7, call: 1 << 40, payload: []byte("args")}
	p := appendRelay(nil, 3, 5, in)
	m, rest, err := nextMessage(p)
	if err != nil || len(rest) != 0 || m.kind != kindRelay {
		t.Fatalf("envelope: %+v, %d left, %v", m, len(rest), err)
	}
	src, dest, got, err := unwrap(m, 6)
	if err != nil || src != 3 || dest != 5 || got.kind != in.kind || got.handler != in.handler ||
		got.call != in.call || !bytes.Equal(got.payload, in.payload) {
		t.Fatalf("unwrap: %d %d %+v %v; want 3 5 %+v", src, dest, got, err, in)
	}
	for name, bad := range map[string]message{
		"source outside": {kind: kindRelay, call: 9<<32 | 1, payload: appendMessage(nil, in)},
		"dest outside":   {kind: kindRelay, call: 1<<32 | 6, payload: appendMessage(nil, in)},
		"stray bytes":    {kind: kindRelay, call: 1<<32 | 2, payload: append(appendMessage(nil, in), 0)},
		"nested":         {kind: kindRelay, call: 1<<32 | 2, payload: appendRelay(nil, 1, 2, in)},
		"cut short":      {kind: kindRelay, call: 1<<32 | 2, payload: appendMessage(nil, in)[:headerLen(in)+1]},
	} {
		if _, _, _, err := unwrap(bad, 6); err == nil {
			t.Errorf("%s: unwrap accepted %+v", name, bad)
		}
	}
}

// FuzzUnwrap: no packet makes nextMessage or unwrap panic.
func FuzzUnwrap(f *testing.F) {
	f.Add(appendRelay(nil, 1, 2, message{kind: kindPost, handler: 1, payload: []byte("x")}))
	f.Add(appendRelay(nil, 0, 0, message{kind: kindReply}))
	f.Fuzz(func(t *testing.T, p []byte) {
		for len(p) > 0 {
			m, rest, err := nextMessage(p)
			if err != nil {
				return
			}
			if m.kind == kindRelay {
				unwrap(m, 4)
			}
			p = rest
		}
	})
}
