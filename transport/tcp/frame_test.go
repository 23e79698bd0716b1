package tcp

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"math"
	"runtime"
	"strings"
	"testing"

	"github.com/plexus-hpc/plexus/transport/frame"
)

func decodeAll(t *testing.T, b []byte, max int) ([]frame.Header, [][]byte, error) {
	t.Helper()
	d := newDecoder(bufio.NewReader(bytes.NewReader(b)), max)
	var hs []frame.Header
	var ps [][]byte
	for {
		h, p, err := d.Next()
		if err != nil {
			return hs, ps, err
		}
		hs = append(hs, h)
		ps = append(ps, bytes.Clone(p))
	}
}

func TestFrameRoundTrip(t *testing.T) {
	cases := []struct {
		name    string
		h       frame.Header
		payload []byte
	}{
		{"empty eager", frame.Header{Kind: frame.Eager}, nil},
		{"eager", frame.Header{Kind: frame.Eager, Comm: 7, Source: 3, Tag: -1, Seq: 42}, []byte("hello")},
		{"rts", frame.Header{Kind: frame.RTS, Flags: 0x81, Source: math.MaxInt32, Tag: math.MinInt32, Seq: math.MaxUint64, Aux: 1 << 40}, nil},
		{"cts", frame.Header{Kind: frame.CTS, Comm: math.MaxUint32, Seq: 9, Aux: 10}, nil},
		{"data", frame.Header{Kind: frame.Data, Seq: 10, Aux: 4096}, bytes.Repeat([]byte{0xAB}, 4096)},
		{"credit", frame.Header{Kind: frame.Credit, Aux: 64}, nil},
		{"hello", frame.Header{Kind: frame.Hello}, make([]byte, nonceSize)},
		{"auth", frame.Header{Kind: frame.Auth, Source: 1, Aux: 4}, make([]byte, authPayload+5)},
		{"bye", frame.Header{Kind: frame.Bye, Aux: refuseAuth}, []byte("no")},
		{"ping", frame.Header{Kind: frame.Ping, Source: 2}, nil},
	}
	var stream []byte
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := appendFrame(nil, c.h, c.payload)
			if len(b) != headerSize+len(c.payload) {
				t.Fatalf("frame is %d bytes, want %d", len(b), headerSize+len(c.payload))
			}
			hs, ps, err := decodeAll(t, b, 1<<20)
			if err != io.EOF || len(hs) != 1 {
				t.Fatalf("decoded %d frames, err %v", len(hs), err)
			}
			if hs[0] != c.h || !bytes.Equal(ps[0], c.payload) {
				t.Fatalf("decoded %+v %q, want %+v %q", hs[0], ps[0], c.h, c.payload)
			}
		})
		stream = appendFrame(stream, c.h, c.payload)
	}
	hs, _, err := decodeAll(t, stream, 1<<20)
	if err != io.EOF || len(hs) != len(cases) {
		t.Fatalf("stream: decoded %d of %d frames, err %v", len(hs), len(cases), err)
	}
}

// TestFrameLayout pins the wire format documented in docs/wire-format.md.
func TestFrameLayout(t *testing.T) {
	h := frame.Header{Kind: frame.RTS, Flags: 0x05, Comm: 0x01020304, Source: 2, Tag: -2, Seq: 0x1112131415161718, Aux: 0x2122232425262728}
	got := hex.EncodeToString(appendFrame(nil, h, []byte{0xEE}))
	want := "a7" + "01" + "02" + "05" + "04030201" + "02000000" + "feffffff" +
		"1817161514131211" + "2827262524232221" + "01000000" + "ee"
	if got != want {
		t.Fatalf("frame bytes\n got %s\nwant %s", got, want)
	}
}

func TestDecoderErrors(t *testing.T) {
	good := appendFrame(nil, frame.Header{Kind: frame.Eager, Tag: 1}, []byte("payload"))
	patch := func(i int, v byte) []byte { b := bytes.Clone(good); b[i] = v; return b }
	cases := []struct {
		name  string
		in    []byte
		want  error
		words string
	}{
		{"empty", nil, io.EOF, "EOF"},
		{"short header", good[:10], io.ErrUnexpectedEOF, "header"},
		{"short payload", good[:len(good)-1], io.ErrUnexpectedEOF, "payload"},
		{"header only", good[:headerSize], io.ErrUnexpectedEOF, "payload"},
		{"magic", patch(0, 'G'), ErrMalformed, "magic"},
		{"version", patch(1, 2), ErrMalformed, "version 2"},
		{"kind zero", patch(2, 0), ErrMalformed, "unknown kind 0"},
		{"kind unknown", patch(2, byte(frame.Ping)+1), ErrMalformed, "unknown kind"},
		{"too large", patch(33, 1), ErrTooLarge, "announces 263"},
		{"http", []byte("GET / HTTP/1.1\r\n\r\n"), ErrMalformed, "magic"},
		{"short stranger", []byte("G"), io.ErrUnexpectedEOF, "header"},
		{"one byte", good[:1], io.ErrUnexpectedEOF, "header"},
		{"two bytes", good[:2], io.ErrUnexpectedEOF, "header"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := decodeAll(t, c.in, 100)
			if !errors.Is(err, c.want) || !strings.Contains(err.Error(), c.words) {
				t.Fatalf("err = %v, want %v mentioning %q", err, c.want, c.words)
			}
		})
	}
}

// TestDecoderBoundedAllocation checks that an announced length beyond
// maxPayload allocates nothing, and that buffers are reused.
func TestDecoderBoundedAllocation(t *testing.T) {
	huge := appendFrame(nil, frame.Header{Kind: frame.Data}, nil)
	huge[32], huge[33], huge[34], huge[35] = 0xff, 0xff, 0xff, 0xff
	r := bytes.NewReader(huge)
	br := bufio.NewReader(r)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		r.Reset(huge)
		br.Reset(r)
		d := decoder{r: br, maxPayload: 1 << 10}
		if _, _, err := d.Next(); !errors.Is(err, ErrTooLarge) {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 100<<10 {
		t.Errorf("100 oversized headers allocated %d bytes", n)
	}
	frame := appendFrame(nil, frame.Header{Kind: frame.Eager}, make([]byte, 512))
	stream := bytes.Repeat(frame, 200)
	d := newDecoder(bufio.NewReader(bytes.NewReader(stream)), 1<<10)
	d.Next()
	allocs := testing.AllocsPerRun(100, func() { d.Next() })
	if allocs != 0 {
		t.Errorf("steady-state Next made %v allocations, want 0", allocs)
	}
}
