package tcp

import (
	"fmt"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// Invariants of a frameReader:
//   - buf[r:w] holds bytes read but not yet returned by next.
//   - need is -1 between frames; otherwise hdr is the current frame's
//     header, already consumed from buf, and need its payload length.
//   - big is non-nil while the payload of a frame longer than buf is being
//     read straight into it; got counts its bytes so far, and buf is empty.

// frameReader is the connection's decoder once the handshake is over. It
// does no I/O: the caller reads into space, reports the count to wrote,
// and takes frames from next until it has none, so that reading can stop
// whenever the socket has nothing more (a non-blocking read returns
// EAGAIN) and resume later, from whichever goroutine reads next. The
// blocking decoder is its reference twin.
//
// A frameReader is not safe for concurrent use; the connection's read lock
// guards it.
type frameReader struct {
	maxPayload int
	buf        []byte
	r, w       int
	hdr        frame.Header
	need       int
	big        []byte
	got        int
	spare      []byte // a former big buffer, kept if at most retainLimit
}

func newFrameReader(size, maxPayload int, pending []byte) *frameReader {
	f := &frameReader{maxPayload: maxPayload, buf: make([]byte, max(size, len(pending))), need: -1}
	f.w = copy(f.buf, pending)
	return f
}

// space returns where the next read should put its bytes; it is never
// empty. It may move the unread bytes, so payloads returned by next are
// valid only until it is called.
func (f *frameReader) space() []byte {
	if f.big != nil {
		return f.big[f.got:]
	}
	if f.r == f.w {
		f.r, f.w = 0, 0
	}
	if want := max(f.need, headerSize); len(f.buf)-f.r < want || f.w == len(f.buf) {
		f.w = copy(f.buf, f.buf[f.r:f.w])
		f.r = 0
	}
	return f.buf[f.w:]
}

// wrote records that n bytes were read into the last space.
func (f *frameReader) wrote(n int) {
	if f.big != nil {
		f.got += n
		return
	}
	f.w += n
}

// next returns the next whole frame, or ok=false if more bytes are
// needed. The payload is valid until the next call of space. An error
// means the stream is broken; the frameReader must then be dropped.
func (f *frameReader) next() (h frame.Header, p []byte, ok bool, err error) {
	if f.big != nil {
		return f.nextBig()
	}
	if f.need < 0 {
		if f.w-f.r < headerSize {
			return frame.Header{}, nil, false, nil
		}
		if err := f.header(); err != nil {
			return frame.Header{}, nil, false, err
		}
	}
	if f.need > len(f.buf) {
		f.startBig()
		return f.nextBig()
	}
	if f.w-f.r < f.need {
		return frame.Header{}, nil, false, nil
	}
	p = f.buf[f.r : f.r+f.need]
	f.r += f.need
	f.need = -1
	return f.hdr, p, true, nil
}

// header consumes and checks the header at buf[r:].
func (f *frameReader) header() error {
	h, n, err := parseHeader((*[headerSize]byte)(f.buf[f.r:]))
	if err != nil {
		return err
	}
	if uint64(n) > uint64(max(f.maxPayload, 0)) {
		return fmt.Errorf("%w: %s frame announces %d bytes, limit %d", ErrTooLarge, h.Kind, n, f.maxPayload)
	}
	f.r += headerSize
	f.hdr, f.need = h, int(n)
	return nil
}

// startBig moves the start of a payload longer than buf into its own
// buffer, which later reads fill directly.
func (f *frameReader) startBig() {
	if cap(f.spare) >= f.need {
		f.big = f.spare[:f.need]
	} else {
		f.big = make([]byte, f.need)
	}
	f.spare = nil
	f.got = copy(f.big, f.buf[f.r:f.w])
	f.r, f.w = 0, 0
}

func (f *frameReader) nextBig() (frame.Header, []byte, bool, error) {
	if f.got < len(f.big) {
		return frame.Header{}, nil, false, nil
	}
	p := f.big
	f.big, f.need = nil, -1
	if cap(p) <= retainLimit {
		f.spare = p
	}
	return f.hdr, p, true, nil
}
