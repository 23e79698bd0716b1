package multirail

// decoder cuts a rail's byte stream into frames (a header, and for data
// the chunk's bytes) whoever reads the socket: the rail's reader
// goroutine or a Recv that polls (poll.go). Bytes are read into a
// staging buffer, so that one read takes several small frames; a chunk
// longer than what the buffer holds gets a buffer of its own, into which
// the rest of it is read directly. Every chunk's bytes are handed out in
// a slice of their own, which the receiver may keep.
//
// Guarded by its railConn's rmu.
type decoder struct {
	buf  []byte // staged bytes are buf[r:w]
	r, w int
	pool *bufPool // where a chunk's slice comes from (Link.Release)
	// big is a long chunk being read into its own buffer: big.data[:got]
	// has arrived.
	big struct {
		on   bool
		h    header
		data []byte
		got  int
	}
}

// stageLen is the staging buffer's size: many small frames, or the
// start of a long chunk, per read.
const stageLen = 64 << 10

func newDecoder(pool *bufPool) decoder { return decoder{buf: make([]byte, stageLen), pool: pool} }

// space is where the next read goes.
func (d *decoder) space() []byte {
	if d.big.on {
		return d.big.data[d.big.got:]
	}
	if d.r == d.w {
		d.r, d.w = 0, 0
	} else if d.r > 0 && len(d.buf)-d.w < len(d.buf)/2 {
		d.w = copy(d.buf, d.buf[d.r:d.w]) // a frame that fits is whole once the buffer is full
		d.r = 0
	}
	return d.buf[d.w:]
}

// wrote records n bytes read into space.
func (d *decoder) wrote(n int) {
	if d.big.on {
		d.big.got += n
		return
	}
	d.w += n
}

// next returns the next whole frame, ok false when more bytes are needed;
// an error for a header that is malformed or over maxMessage.
func (d *decoder) next(maxMessage int) (h header, data []byte, ok bool, err error) {
	if d.big.on {
		if d.big.got < len(d.big.data) {
			return header{}, nil, false, nil
		}
		h, data = d.big.h, d.big.data
		d.big.on, d.big.data = false, nil
		return h, data, true, nil
	}
	if d.w-d.r < headerLen {
		return header{}, nil, false, nil
	}
	if h, err = parseHeader(d.buf[d.r:d.r+headerLen], maxMessage); err != nil {
		return h, nil, false, err
	}
	if h.kind == kindAck {
		d.r += headerLen
		return h, nil, true, nil
	}
	n := int(h.len)
	if have := d.w - d.r - headerLen; have < n {
		if headerLen+n <= len(d.buf) {
			return header{}, nil, false, nil // it fits: wait for the rest
		}
		d.big.on, d.big.h, d.big.data = true, h, d.pool.get(n, !h.whole())
		d.big.got = copy(d.big.data, d.buf[d.r+headerLen:d.w])
		d.r = d.w
		return header{}, nil, false, nil
	}
	data = d.pool.get(n, !h.whole())
	copy(data, d.buf[d.r+headerLen:])
	d.r += headerLen + n
	return h, data, true, nil
}
