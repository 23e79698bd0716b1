package group

import (
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/plexus-hpc/plexus/agree"
)

func TestFrameRoundTrip(t *testing.T) {
	ms := []agree.Message{
		{Type: agree.Accept, From: 1, To: agree.All, Epoch: 2, Slot: 9, Value: []byte("v")},
		{Type: agree.Heartbeat, From: 1, To: agree.All, Epoch: 2, Slot: 9},
		{Type: agree.Accept, From: 1, To: agree.All, Epoch: 2, Slot: 10, Value: bytes.Repeat([]byte("a"), 200)},   // 2-byte length
		{Type: agree.Accept, From: 1, To: agree.All, Epoch: 2, Slot: 11, Value: bytes.Repeat([]byte("b"), 20000)}, // 3-byte length
		{Type: agree.Accept, From: 1, To: agree.All, Epoch: 2, Slot: 12, Value: []byte("w")},
	}
	f, err := encodeFrame(nil, frameTree, 1, ms)
	if err != nil {
		t.Fatal(err)
	}
	kind, origin, _, err := frameHeader(f)
	if err != nil || kind != frameTree || origin != 1 {
		t.Fatalf("header: kind %d origin %d err %v", kind, origin, err)
	}
	got, err := decodeFrame(f)
	if err != nil || !reflect.DeepEqual(got, ms) {
		t.Fatalf("decoded %v, %v; want %v", got, err, ms)
	}
	for cut := range len(f) {
		if _, err := decodeFrame(f[:cut]); !errors.Is(err, agree.ErrMessage) {
			t.Errorf("frame cut to %d of %d bytes: %v, want agree.ErrMessage", cut, len(f), err)
		}
	}
}

func FuzzFrame(f *testing.F) {
	b, _ := encodeFrame(nil, frameDirect, 0, []agree.Message{{Type: agree.Forward, From: 0, To: 1, Value: []byte("x")}})
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) { _, _ = decodeFrame(b) })
}
