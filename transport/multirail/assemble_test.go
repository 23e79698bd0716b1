package multirail

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"testing"
)

// chunkOf is the header of bytes [off, off+n) of message msg.
func chunkOf(msg uint64, off, n, total int) header {
	return header{kind: kindData, msg: msg, off: uint64(off), len: uint32(n), total: uint64(total)}
}

// TestAssemblyInOrderExactlyOnce feeds the chunks of 50 random messages
// in a random order, a third of them twice, and checks that every message
// comes out once, intact and in order.
func TestAssemblyInOrderExactlyOnce(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	type piece struct {
		h    header
		data []byte
	}
	var msgs [][]byte
	var pieces []piece
	for m := range 50 {
		msg := make([]byte, rng.IntN(5000))
		for i := range msg {
			msg[i] = byte(rng.Uint32())
		}
		msgs = append(msgs, msg)
		off := 0
		for {
			n := min(len(msg)-off, 1+rng.IntN(1500))
			pieces = append(pieces, piece{chunkOf(uint64(m), off, n, len(msg)), msg[off : off+n]})
			off += n
			if off == len(msg) {
				break
			}
		}
	}
	twice := len(pieces) / 3
	for i := range twice {
		pieces = append(pieces, pieces[i*3])
	}
	rng.Shuffle(len(pieces), func(i, j int) { pieces[i], pieces[j] = pieces[j], pieces[i] })
	a := newAssembly(1<<30, nil)
	var got [][]byte
	dups := 0
	for _, p := range pieces {
		dup, _, err := a.add(p.h, p.data)
		if err != nil {
			t.Fatal(err)
		}
		if dup {
			dups++
		}
		got = append(got, a.ready(nil)...)
	}
	if dups != twice {
		t.Errorf("%d duplicates reported, want %d", dups, twice)
	}
	if len(got) != len(msgs) {
		t.Fatalf("%d messages out, want %d", len(got), len(msgs))
	}
	for i := range msgs {
		if !bytes.Equal(got[i], msgs[i]) {
			t.Fatalf("message %d: %d bytes out, not the %d sent", i, len(got[i]), len(msgs[i]))
		}
	}
	if a.pending != 0 || len(a.partial) != 0 {
		t.Errorf("after all: %d pending bytes in %d partial messages", a.pending, len(a.partial))
	}
}

// TestAssemblyRefuses checks the contradictions and the window.
func TestAssemblyRefuses(t *testing.T) {
	a := newAssembly(1000, nil)
	if _, _, err := a.add(chunkOf(0, 0, 10, 100), make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	for name, h := range map[string]header{
		"other total": chunkOf(0, 10, 10, 200),
		"overlap":     chunkOf(0, 5, 10, 100),
		"window":      chunkOf(1, 0, 10, 901),
	} {
		if _, _, err := a.add(h, make([]byte, h.len)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: err %v, want ErrMalformed", name, err)
		}
	}
	if len(a.ready(nil)) != 0 {
		t.Errorf("a partial message came out")
	}
}
