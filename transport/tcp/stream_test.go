package tcp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// TestFrameReaderMatchesDecoder feeds one stream of frames, cut into
// random pieces, to the frameReader and to its reference twin, the
// blocking decoder, and demands the same frames in the same order.
func TestFrameReaderMatchesDecoder(t *testing.T) {
	for seed := range uint64(50) {
		rng := rand.New(rand.NewPCG(seed, 7))
		stream := randomStream(rng, 40)
		want := decodeRef(t, stream)
		bufSize := headerSize + rng.IntN(300)
		got := feedAll(t, newFrameReader(bufSize, 1<<20, nil), stream, rng)
		if len(got) != len(want) {
			t.Fatalf("seed %d: %d frames, want %d", seed, len(got), len(want))
		}
		for i := range want {
			if got[i].h != want[i].h || !bytes.Equal(got[i].p, want[i].p) {
				t.Fatalf("seed %d: frame %d differs", seed, i)
			}
		}
	}
}

// TestFrameReaderRejects checks that the frameReader refuses what the
// decoder refuses: a foreign magic byte and an oversized payload.
func TestFrameReaderRejects(t *testing.T) {
	big := appendFrame(nil, frame.Header{Kind: frame.Eager}, make([]byte, 100))
	f := newFrameReader(64, 99, big)
	if _, _, _, err := f.next(); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("oversized payload: %v, want ErrTooLarge", err)
	}
	bad := append([]byte{0x47, 0x45}, make([]byte, headerSize)...)
	if _, _, _, err := newFrameReader(64, 99, bad).next(); !errors.Is(err, ErrMalformed) {
		t.Fatalf("foreign bytes: %v, want ErrMalformed", err)
	}
}

type refFrame struct {
	h frame.Header
	p []byte
}

func randomStream(rng *rand.Rand, n int) []byte {
	var b []byte
	for i := range n {
		p := make([]byte, []int{0, 1, 8, 100, 1000, 5000}[rng.IntN(6)])
		for j := range p {
			p[j] = byte(rng.Uint32())
		}
		h := frame.Header{Kind: frame.Eager + frame.Kind(rng.IntN(5)), Tag: int32(i), Seq: rng.Uint64(), Source: 3}
		b = appendFrame(b, h, p)
	}
	return b
}

func decodeRef(t *testing.T, stream []byte) []refFrame {
	d := newDecoder(bufio.NewReader(bytes.NewReader(stream)), 1<<20)
	var out []refFrame
	for {
		h, p, err := d.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, refFrame{h, bytes.Clone(p)})
	}
}

func feedAll(t *testing.T, f *frameReader, stream []byte, rng *rand.Rand) []refFrame {
	var out []refFrame
	for {
		for {
			h, p, ok, err := f.next()
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			out = append(out, refFrame{h, bytes.Clone(p)})
		}
		if len(stream) == 0 {
			return out
		}
		n := copy(f.space(), stream[:min(len(stream), 1+rng.IntN(700))])
		f.wrote(n)
		stream = stream[n:]
	}
}
