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
)

func decodeAll(t *testing.T, b []byte, max int) ([]Header, [][]byte, error) {
	t.Helper()
	d := NewDecoder(bufio.NewReader(bytes.NewReader(b)), max)
	var hs []Header
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
		h       Header
		payload []byte
	}{
		{"empty eager", Header{Kind: Eager}, nil},
		{"eager", Header{Kind: Eager, Comm: 7, Source: 3, Tag: -1, Seq: 42}, []byte("hello")},
		{"rts", Header{Kind: RTS, Flags: 0x81, Source: math.MaxInt32, Tag: math.MinInt32, Seq: math.MaxUint64, Aux: 1 << 40}, nil},
		{"cts", Header{Kind: CTS, Comm: math.MaxUint32, Seq: 9, Aux: 10}, nil},
		{"data", Header{Kind: Data, Seq: 10, Aux: 4096}, bytes.Repeat([]byte{0xAB}, 4096)},
		{"credit", Header{Kind: Credit, Aux: 64}, nil},
		{"hello", Header{Kind: Hello}, make([]byte, nonceSize)},
		{"auth", Header{Kind: Auth, Source: 1, Aux: 4}, make([]byte, authPayload+5)},
		{"bye", Header{Kind: Bye, Aux: refuseAuth}, []byte("no")},
		{"ping", Header{Kind: Ping, Source: 2}, nil},
	}
	var stream []byte
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := AppendFrame(nil, c.h, c.payload)
			if len(b) != HeaderSize+len(c.payload) {
				t.Fatalf("frame is %d bytes, want %d", len(b), HeaderSize+len(c.payload))
			}
			hs, ps, err := decodeAll(t, b, 1<<20)
			if err != io.EOF || len(hs) != 1 {
				t.Fatalf("decoded %d frames, err %v", len(hs), err)
			}
			if hs[0] != c.h || !bytes.Equal(ps[0], c.payload) {
				t.Fatalf("decoded %+v %q, want %+v %q", hs[0], ps[0], c.h, c.payload)
			}
		})
		stream = AppendFrame(stream, c.h, c.payload)
	}
	hs, _, err := decodeAll(t, stream, 1<<20)
	if err != io.EOF || len(hs) != len(cases) {
		t.Fatalf("stream: decoded %d of %d frames, err %v", len(hs), len(cases), err)
	}
}

// TestFrameLayout pins the wire format documented in docs/wire-format.md.
func TestFrameLayout(t *testing.T) {
	h := Header{Kind: RTS, Flags: 0x05, Comm: 0x01020304, Source: 2, Tag: -2, Seq: 0x1112131415161718, Aux: 0x2122232425262728}
	got := hex.EncodeToString(AppendFrame(nil, h, []byte{0xEE}))
	want := "a7" + "01" + "02" + "05" + "04030201" + "02000000" + "feffffff" +
		"1817161514131211" + "2827262524232221" + "01000000" + "ee"
	if got != want {
		t.Fatalf("frame bytes\n got %s\nwant %s", got, want)
	}
}

func TestDecoderErrors(t *testing.T) {
	good := AppendFrame(nil, Header{Kind: Eager, Tag: 1}, []byte("payload"))
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
		{"header only", good[:HeaderSize], io.ErrUnexpectedEOF, "payload"},
		{"magic", patch(0, 'G'), ErrMalformed, "magic"},
		{"version", patch(1, 2), ErrMalformed, "version 2"},
		{"kind zero", patch(2, 0), ErrMalformed, "unknown kind 0"},
		{"kind unknown", patch(2, byte(Ping)+1), ErrMalformed, "unknown kind"},
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
// MaxPayload allocates nothing, and that buffers are reused.
func TestDecoderBoundedAllocation(t *testing.T) {
	huge := AppendFrame(nil, Header{Kind: Data}, nil)
	huge[32], huge[33], huge[34], huge[35] = 0xff, 0xff, 0xff, 0xff
	r := bytes.NewReader(huge)
	br := bufio.NewReader(r)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		r.Reset(huge)
		br.Reset(r)
		d := Decoder{r: br, MaxPayload: 1 << 10}
		if _, _, err := d.Next(); !errors.Is(err, ErrTooLarge) {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 100<<10 {
		t.Errorf("100 oversized headers allocated %d bytes", n)
	}
	frame := AppendFrame(nil, Header{Kind: Eager}, make([]byte, 512))
	stream := bytes.Repeat(frame, 200)
	d := NewDecoder(bufio.NewReader(bytes.NewReader(stream)), 1<<10)
	d.Next()
	allocs := testing.AllocsPerRun(100, func() { d.Next() })
	if allocs != 0 {
		t.Errorf("steady-state Next made %v allocations, want 0", allocs)
	}
}
