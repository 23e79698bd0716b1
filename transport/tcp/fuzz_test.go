package tcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/plexus-hpc/plexus/transport/frame"
)

const fuzzMax = 1 << 12

// FuzzDecoder feeds arbitrary bytes to a decoder. It must not panic or
// hang, must never hold a buffer beyond maxPayload, must end with io.EOF
// or one of the documented errors, and every frame it returns must
// re-encode to exactly the bytes it was decoded from.
func FuzzDecoder(f *testing.F) {
	f.Add([]byte{})
	f.Add(appendFrame(nil, frame.Header{Kind: frame.Eager, Tag: 3, Seq: 1}, []byte("hi")))
	f.Add(appendFrame(appendFrame(nil, frame.Header{Kind: frame.RTS, Aux: 1 << 20}, nil), frame.Header{Kind: frame.Data, Aux: 8}, make([]byte, 100)))
	f.Add(appendFrame(nil, frame.Header{Kind: frame.Auth, Source: 1, Aux: 2}, make([]byte, authPayload+3)))
	f.Add(appendFrame(nil, frame.Header{Kind: frame.Ping}, nil)[:20])
	f.Add([]byte("GET / HTTP/1.0\r\n\r\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		d := newDecoder(bufio.NewReader(bytes.NewReader(in)), fuzzMax)
		off := 0
		for {
			h, p, err := d.Next()
			if cap(d.buf) > fuzzMax {
				t.Fatalf("decoder holds a %d-byte buffer, limit %d", cap(d.buf), fuzzMax)
			}
			if err != nil {
				checkFuzzErr(t, err, off == len(in))
				return
			}
			re := appendFrame(nil, h, p)
			if !bytes.Equal(re, in[off:off+len(re)]) {
				t.Fatalf("frame at %d re-encodes to %x, input has %x", off, re, in[off:off+len(re)])
			}
			off += len(re)
		}
	})
}

func checkFuzzErr(t *testing.T, err error, atEnd bool) {
	if err == io.EOF {
		if !atEnd {
			t.Fatal("io.EOF before the end of the input")
		}
		return
	}
	for _, want := range []error{io.ErrUnexpectedEOF, ErrMalformed, ErrTooLarge} {
		if errors.Is(err, want) {
			return
		}
	}
	t.Fatalf("undocumented error %v", err)
}
