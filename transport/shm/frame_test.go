package shm

import (
	"encoding/hex"
	"strings"
	"testing"
)

// TestFrameLayout pins a frame's first ring message as docs/shm-format.md
// maps it.
func TestFrameLayout(t *testing.T) {
	h := Header{Kind: RTS, Flags: 0x05, Comm: 0x01020304, Source: 2, Tag: -2, Seq: 0x1112131415161718, Aux: 0x2122232425262728}
	b := make([]byte, headerSize)
	putHeader(b, h, 0x01020304)
	want := "a7" + "02" + "05" + "00" + "04030201" + "02000000" + "feffffff" +
		"1817161514131211" + "2827262524232221" + "04030201"
	if got := hex.EncodeToString(b); got != want {
		t.Fatalf("header bytes\n got %s\nwant %s", got, want)
	}
	got, n, err := parseHeader(b)
	if err != nil || got != h || n != 0x01020304 {
		t.Fatalf("parsed %+v, %d, %v; want %+v, %d", got, n, err, h, 0x01020304)
	}
}

// TestFrameKinds checks that a frame of a kind shm never sends, such as
// TCP's Hello, is malformed.
func TestFrameKinds(t *testing.T) {
	b := make([]byte, headerSize)
	for _, k := range []Kind{0, Credit + 1, 200} {
		putHeader(b, Header{Kind: k}, 0)
		if _, _, err := parseHeader(b); err == nil || !strings.Contains(err.Error(), "unknown kind") {
			t.Errorf("kind %d: err %v, want an unknown kind", uint8(k), err)
		}
	}
}
