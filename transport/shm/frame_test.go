package shm

import (
	"encoding/hex"
	"strings"
	"testing"
)

// TestFrameLayout pins a frame's first ring message, in both header
// forms, as docs/shm-format.md maps it.
func TestFrameLayout(t *testing.T) {
	for _, c := range []struct {
		name string
		h    Header
		n    int
		want string
	}{
		{"full", Header{Kind: RTS, Flags: 0x05, Comm: 0x01020304, Source: 2, Tag: -2, Seq: 0x1112131415161718, Aux: 0x2122232425262728},
			0x01020304, "a7" + "02" + "05" + "00" + "04030201" + "02000000" + "feffffff" +
				"1817161514131211" + "2827262524232221" + "04030201"},
		{"full, seq 0 but aux not the length", Header{Kind: Credit, Source: 2, Aux: 7},
			0, "a7" + "05" + "00" + "00" + "00000000" + "02000000" + "00000000" +
				"0000000000000000" + "0700000000000000" + "00000000"},
		{"short", Header{Kind: Eager, Flags: 0x05, Comm: 0x01020304, Source: 2, Tag: -2, Aux: 0x0a0b0c0d},
			0x0a0b0c0d, "a8" + "01" + "05" + "00" + "04030201" + "feffffff" + "0d0c0b0a"},
	} {
		b := make([]byte, headerSize)
		size := putHeader(b, c.h, c.n)
		if got := hex.EncodeToString(b[:size]); got != c.want || size != headerLen(c.h, c.n) {
			t.Errorf("%s: header bytes (%d, headerLen %d)\n got %s\nwant %s", c.name, size, headerLen(c.h, c.n), got, c.want)
		}
		got, n, hl, err := parseHeader(b[:size], int(c.h.Source))
		if err != nil || got != c.h || n != c.n || hl != size {
			t.Errorf("%s: parsed %+v, %d, %d, %v; want %+v, %d, %d", c.name, got, n, hl, err, c.h, c.n, size)
		}
	}
}

// TestFrameKinds checks that a frame of a kind shm never sends, such as
// TCP's Hello, is malformed, in either header form.
func TestFrameKinds(t *testing.T) {
	b := make([]byte, headerSize)
	for _, k := range []Kind{0, Credit + 1, 200} {
		for _, aux := range []uint64{0, 1} { // short, full
			putHeader(b, Header{Kind: k, Aux: aux}, 0)
			if _, _, _, err := parseHeader(b, 0); err == nil || !strings.Contains(err.Error(), "unknown kind") {
				t.Errorf("kind %d, aux %d: err %v, want an unknown kind", uint8(k), aux, err)
			}
		}
	}
}

// TestFrameTruncatedHeader: a first message shorter than its header's
// form is malformed.
func TestFrameTruncatedHeader(t *testing.T) {
	b := make([]byte, headerSize)
	for _, aux := range []uint64{0, 1} {
		size := putHeader(b, Header{Kind: Eager, Aux: aux}, 0)
		if _, _, _, err := parseHeader(b[:size-1], 0); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("%d-byte header cut to %d bytes: err %v, want malformed", size, size-1, err)
		}
	}
}
