package tcp

import (
	"bufio"
	"errors"
	"fmt"
	"io"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// retainLimit is the largest payload buffer a decoder keeps between frames.
// A connection that once carried a big rendezvous chunk should not pin that
// much memory for the rest of its life; thousands of peers would multiply it.
const retainLimit = 1 << 20

// decoder reads frames from a stream. It never allocates more than
// maxPayload bytes for a payload, and it checks every header before it
// reads the payload, so a hostile or broken stream costs at most that.
//
// A decoder is not safe for concurrent use.
type decoder struct {
	// maxPayload is the longest payload Next accepts; a longer one is
	// ErrTooLarge. It may be changed between calls (the handshake reads
	// with a small limit, the connection afterwards with Config.MaxPayload).
	maxPayload int

	r   *bufio.Reader
	hdr [headerSize]byte
	buf []byte
}

// newDecoder returns a decoder reading from r that accepts payloads of up
// to maxPayload bytes.
func newDecoder(r *bufio.Reader, maxPayload int) *decoder {
	return &decoder{r: r, maxPayload: maxPayload}
}

// Next reads the next frame. The payload is valid until the next call.
//
// At a clean end of stream between frames Next returns io.EOF. A stream
// that ends inside a frame gives an error wrapping io.ErrUnexpectedEOF;
// a bad header one wrapping ErrMalformed; a payload longer than maxPayload
// one wrapping ErrTooLarge. Other errors are the reader's. After an error
// the stream's position is unknown and the decoder should be dropped.
func (d *decoder) Next() (frame.Header, []byte, error) {
	h, n, err := d.header()
	if err != nil {
		return frame.Header{}, nil, err
	}
	if uint64(n) > uint64(max(d.maxPayload, 0)) {
		return frame.Header{}, nil, fmt.Errorf("%w: %s frame announces %d bytes, limit %d", ErrTooLarge, h.Kind, n, d.maxPayload)
	}
	p, err := d.payload(int(n))
	if err != nil {
		return frame.Header{}, nil, fmt.Errorf("tcp: reading %d-byte %s payload: %w", n, h.Kind, err)
	}
	return h, p, nil
}

// header reads and parses the fixed header. It checks the magic and
// version as soon as they arrive, so a stranger speaking another protocol
// is refused at once rather than when its first 36 bytes are in.
func (d *decoder) header() (frame.Header, uint32, error) {
	if _, err := io.ReadFull(d.r, d.hdr[:2]); err != nil {
		return frame.Header{}, 0, headerReadError(err)
	}
	if err := checkPrefix(d.hdr[0], d.hdr[1]); err != nil {
		return frame.Header{}, 0, err
	}
	if _, err := io.ReadFull(d.r, d.hdr[2:]); err != nil {
		return frame.Header{}, 0, headerReadError(io.ErrUnexpectedEOF, err)
	}
	return parseHeader(&d.hdr)
}

// headerReadError reports err, or eofAs if err is io.EOF: a clean end
// before a frame, or a truncated header after its first bytes.
func headerReadError(err error, eofAs ...error) error {
	if errors.Is(err, io.EOF) {
		if len(eofAs) == 0 {
			return io.EOF
		}
		err = eofAs[0]
	}
	return fmt.Errorf("tcp: reading frame header: %w", err)
}

// payload reads n bytes into the reused buffer.
func (d *decoder) payload(n int) ([]byte, error) {
	if cap(d.buf) > retainLimit && n <= retainLimit {
		d.buf = nil
	}
	if cap(d.buf) < n {
		d.buf = make([]byte, n)
	}
	p := d.buf[:n]
	_, err := io.ReadFull(d.r, p)
	if errors.Is(err, io.EOF) {
		err = io.ErrUnexpectedEOF
	}
	return p, err
}
