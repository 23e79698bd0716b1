package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"testing"
)

var errBad = errors.New("test: bad message")

// TestRoundTrip: what AppendBytes and AppendUvarint write reads back,
// nil and empty apart, with nothing left.
func TestRoundTrip(t *testing.T) {
	b := []byte{7}
	b = binary.AppendUvarint(b, 1<<40)
	b = AppendBytes(b, nil)
	b = AppendBytes(b, []byte{})
	b = AppendBytes(b, []byte("abc"))
	r := NewReader(b, errBad)
	c, x, v0, v1, v2 := r.Byte(), r.Uvarint(), r.Bytes("a"), r.Bytes("b"), r.Bytes("c")
	if err := r.Done("test"); err != nil {
		t.Fatal(err)
	}
	if c != 7 || x != 1<<40 || v0 != nil || v1 == nil || len(v1) != 0 || !bytes.Equal(v2, []byte("abc")) {
		t.Errorf("read %d, %d, %q, %q, %q", c, x, v0, v1, v2)
	}
}

// TestBadInput: truncated strings, bad varints, empty input and extra
// bytes each give an error wrapping the caller's sentinel, the first one
// kept.
func TestBadInput(t *testing.T) {
	for name, read := range map[string]func(r *Reader){
		"truncated string": func(r *Reader) { r.Bytes("v") },
		"bad varint":       func(r *Reader) { r.Uvarint() },
		"empty":            func(r *Reader) { r.Byte() },
		"extra bytes":      func(r *Reader) {},
	} {
		in := map[string][]byte{"truncated string": {5, 'a'}, "bad varint": {0xff}, "empty": nil, "extra bytes": {1}}[name]
		r := NewReader(in, errBad)
		read(&r)
		first := r.Done("test")
		if !errors.Is(first, errBad) {
			t.Errorf("%s: %v, want an error wrapping %v", name, first, errBad)
		}
		r.Fail("later")
		if r.Done("test") != first || r.Len() != 0 || r.Uvarint() != 0 {
			t.Errorf("%s: the first error did not stick", name)
		}
	}
}
