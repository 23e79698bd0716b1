//go:build linux

package shm

import (
	"bytes"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// TestFrameLayout pins a frame's first ring message, in both header
// forms, as docs/shm-format.md maps it.
func TestFrameLayout(t *testing.T) {
	for _, c := range []struct {
		name string
		h    frame.Header
		n    int
		want string
	}{
		{"full", frame.Header{Kind: frame.RTS, Flags: 0x05, Comm: 0x01020304, Source: 2, Tag: -2, Seq: 0x1112131415161718, Aux: 0x2122232425262728},
			0x01020304, "a7" + "02" + "05" + "00" + "04030201" + "02000000" + "feffffff" +
				"1817161514131211" + "2827262524232221" + "04030201"},
		{"full, seq 0 but aux not the length", frame.Header{Kind: frame.Credit, Source: 2, Aux: 7},
			0, "a7" + "05" + "00" + "00" + "00000000" + "02000000" + "00000000" +
				"0000000000000000" + "0700000000000000" + "00000000"},
		{"short", frame.Header{Kind: frame.Eager, Flags: 0x05, Comm: 0x01020304, Source: 2, Tag: -2, Aux: 0x0a0b0c0d},
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

// TestBulkFrameLayout pins the bulk frame's bytes (docs/shm-format.md).
func TestBulkFrameLayout(t *testing.T) {
	b := make([]byte, bulkSize)
	h := frame.Header{Kind: frame.Data, Flags: 0x05, Comm: 0x01020304, Tag: -2, Seq: 0x1112131415161718, Aux: 0x2122232425262728}
	putBulk(b, h, 0x0a0b, 0x0c0d, 0x3132333435363738, false)
	want := "a9" + "04" + "05" + "00" + "04030201" + "feffffff" + "0b0a0000" +
		"1817161514131211" + "2827262524232221" + "0d0c0000" + "00000000" + "3837363534333231"
	if got := hex.EncodeToString(b); got != want {
		t.Errorf("bulk frame bytes\n got %s\nwant %s", got, want)
	}
	e := make([]byte, bulkSize)
	putBulk(b, eagerHeader(7, -3, 500), 500, 128, 4096, false)
	putBulkEager(e, 7, -3, 500, 128, 4096)
	if !bytes.Equal(b, e) {
		t.Errorf("putBulkEager\n got %x\nwant %x (putBulk's)", e, b)
	}
}

// TestFrameKinds checks that a frame of a kind shm never sends, such as
// TCP's Hello, is malformed, in either header form.
func TestFrameKinds(t *testing.T) {
	b := make([]byte, headerSize)
	for _, k := range []frame.Kind{0, frame.Credit + 1, 200} {
		for _, aux := range []uint64{0, 1} { // short, full
			putHeader(b, frame.Header{Kind: k, Aux: aux}, 0)
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
		size := putHeader(b, frame.Header{Kind: frame.Eager, Aux: aux}, 0)
		if _, _, _, err := parseHeader(b[:size-1], 0); err == nil || !strings.Contains(err.Error(), "malformed") {
			t.Errorf("%d-byte header cut to %d bytes: err %v, want malformed", size, size-1, err)
		}
	}
}

// TestStartFrameBundle: a ring message of whole frames back to back
// delivers each; when the last does not end in it, its reassembly starts;
// bytes after the last whole frame that are not a frame are malformed.
func TestStartFrameBundle(t *testing.T) {
	eps, sinks := openN(t, shmDir(t), 2, nil)
	e := eps[1]
	var got []frame.Header
	hook := func(_ int, h frame.Header, p []byte) { got = append(got, h) }
	sinks[1].hook.Store(&hook)
	mkFrame := func(tag int32, n, carried int) []byte {
		return firstMessage(frame.Header{Kind: frame.Eager, Tag: tag, Aux: uint64(n)}, n, make([]byte, carried))
	}
	e.rx.Lock()
	defer e.rx.Unlock()
	var in inbox
	msg := append(append(mkFrame(1, 3, 3), mkFrame(2, 0, 0)...), mkFrame(3, 100, 40)...)
	if err := e.startFrame(0, &in, msg); err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Tag != 1 || got[1].Tag != 2 {
		t.Fatalf("delivered %+v, want tags 1 and 2", got)
	}
	if !in.inFrame || in.h.Tag != 3 || in.want != 100 || in.have != 40 {
		t.Fatalf("reassembly %+v, want tag 3 with 40 of 100 bytes", in)
	}
	var in2 inbox
	if err := e.startFrame(0, &in2, append(mkFrame(4, 3, 3), 0xA8, 1, 0)); err == nil {
		t.Error("three stray bytes after a frame were accepted")
	}
	if err := e.startFrame(0, &in2, nil); err == nil {
		t.Error("an empty ring message was accepted")
	}
}

// TestStartFrameRuns: a bundle's eager frames with one header but for
// their lengths go to DeliverRun together; a frame of another tag or kind,
// or a lone one, goes to Deliver, in order.
func TestStartFrameRuns(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 2, nil)
	e := eps[1]
	var got []string
	e.cfg.Deliver = func(_ int, h frame.Header, p []byte) { got = append(got, fmt.Sprintf("one %d:%s", h.Tag, p)) }
	e.cfg.DeliverRun = func(_ int, h frame.Header, ps [][]byte) {
		got = append(got, fmt.Sprintf("run %d:%q", h.Tag, ps))
	}
	eager := func(tag int32, p string) []byte {
		return firstMessage(frame.Header{Kind: frame.Eager, Tag: tag, Aux: uint64(len(p))}, len(p), []byte(p))
	}
	rts := func(tag int32) []byte {
		return firstMessage(frame.Header{Kind: frame.RTS, Tag: tag, Seq: 9, Aux: 100}, 0, nil)
	}
	var msg []byte
	for _, f := range [][]byte{eager(1, "a"), eager(1, "bb"), eager(1, ""), eager(2, "c"), rts(2), eager(2, "d"), eager(2, "e"), eager(3, "f")} {
		msg = append(msg, f...)
	}
	e.rx.Lock()
	defer e.rx.Unlock()
	var in inbox
	if err := e.startFrame(0, &in, msg); err != nil {
		t.Fatal(err)
	}
	want := []string{`run 1:["a" "bb" ""]`, "one 2:c", "one 2:", `run 2:["d" "e"]`, "one 3:f"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("delivered\n %q\nwant\n %q", got, want)
	}
}

// TestStartFrameRunHeaders: the headers handed up for short eager frames
// — a run's, a lone frame's, and each frame's when there is no DeliverRun
// — carry the frames' kind, flags, communicator and tag, the ring's
// source, and the (first) frame's length.
func TestStartFrameRunHeaders(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 3, nil)
	e := eps[1]
	var got []frame.Header
	e.cfg.Deliver = func(_ int, h frame.Header, p []byte) { got = append(got, h) }
	e.cfg.DeliverRun = func(_ int, h frame.Header, ps [][]byte) { got = append(got, h) }
	eager := func(p string) []byte {
		return firstMessage(frame.Header{Kind: frame.Eager, Flags: 2, Comm: 7, Tag: 5, Aux: uint64(len(p))}, len(p), []byte(p))
	}
	want := frame.Header{Kind: frame.Eager, Flags: 2, Comm: 7, Source: 2, Tag: 5, Aux: 3}
	e.rx.Lock()
	defer e.rx.Unlock()
	for _, c := range []struct {
		name   string
		frames []string
		noRun  bool
		auxes  []uint64
	}{
		{"run", []string{"abc", "de"}, false, []uint64{3}},
		{"lone", []string{"abc"}, false, []uint64{3}},
		{"no DeliverRun", []string{"abc", "de"}, true, []uint64{3, 2}},
	} {
		got = nil
		if c.noRun {
			e.cfg.DeliverRun = nil
		}
		var msg []byte
		for _, f := range c.frames {
			msg = append(msg, eager(f)...)
		}
		var in inbox
		if err := e.startFrame(2, &in, msg); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(got) != len(c.auxes) {
			t.Fatalf("%s: %d deliveries, want %d", c.name, len(got), len(c.auxes))
		}
		for i, h := range got {
			w := want
			w.Aux = c.auxes[i]
			if h != w {
				t.Errorf("%s: header %d = %+v, want %+v", c.name, i, h, w)
			}
		}
	}
}

// TestStartFrameDeliverEager: with DeliverEager set, a lone eager frame
// without flags, a run of one and a bulk frame go to it without a Header;
// a flagged one, and other kinds, still go to Deliver.
func TestStartFrameDeliverEager(t *testing.T) {
	eps, _ := openN(t, shmDir(t), 3, nil)
	e := eps[1]
	var got []string
	e.cfg.Deliver = func(p int, h frame.Header, b []byte) {
		got = append(got, fmt.Sprintf("deliver %d %d/%d/%d %s", p, h.Kind, h.Flags, h.Tag, b))
	}
	e.cfg.DeliverEager = func(p int, comm uint32, tag int32, b []byte) {
		got = append(got, fmt.Sprintf("eager %d %d/%d %s", p, comm, tag, b))
	}
	e.cfg.DeliverRun = func(int, frame.Header, [][]byte) { t.Error("a run of one went to DeliverRun") }
	mkFrame := func(h frame.Header, p string) []byte {
		h.Aux = uint64(len(p))
		return firstMessage(h, len(p), []byte(p))
	}
	bulk := func(h frame.Header, p string, off int, end uint64) []byte {
		copy(e.seg.bulkData(2, 1)[off:], p)
		h.Aux = uint64(len(p))
		b := make([]byte, bulkSize)
		putBulk(b, h, len(p), off, end, false)
		return b
	}
	e.rx.Lock()
	defer e.rx.Unlock()
	var in inbox
	for _, msg := range [][]byte{
		mkFrame(frame.Header{Kind: frame.Eager, Comm: 3, Tag: 4}, "a"),
		mkFrame(frame.Header{Kind: frame.Eager, Flags: 1, Tag: 4}, "b"),
		append(mkFrame(frame.Header{Kind: frame.Eager, Tag: 5}, "c"), mkFrame(frame.Header{Kind: frame.Eager, Tag: 6}, "d")...),
		mkFrame(frame.Header{Kind: frame.Data, Source: 2, Tag: 4, Seq: 2}, "e"),
		bulk(frame.Header{Kind: frame.Eager, Comm: 1, Tag: 7}, "f", 0, 64),
		bulk(frame.Header{Kind: frame.Eager, Flags: 2, Tag: 7}, "g", 64, 128),
	} {
		if err := e.startFrame(2, &in, msg); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{"eager 2 3/4 a", "deliver 2 1/1/4 b", "eager 2 0/5 c", "eager 2 0/6 d", "deliver 2 4/0/4 e",
		"eager 2 1/7 f", "deliver 2 1/2/7 g"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("delivered\n %q\nwant\n %q", got, want)
	}
}

// firstMessage encodes a frame's first ring message: h for a payload of
// total bytes, then the first of them, carried.
func firstMessage(h frame.Header, total int, carried []byte) []byte {
	b := make([]byte, headerSize)
	return append(b[:putHeader(b, h, total)], carried...)
}
