package shm

import (
	"context"
	"encoding/binary"
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/ring"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// Bulk buffers. A frame too long for two ring slots, whose payload is at
// most bulkMax bytes, does not go through the ring's slots: its payload is
// copied into the bulk buffer of the ordered pair, a plain circular byte
// area in the segment, and the ring carries a one-slot bulk frame that
// says where it lies. The receiver hands Deliver the payload where it
// lies, and then publishes how far the buffer is consumed. A 2 KiB payload
// thus costs one copy in and one out, through contiguous memory the
// hardware streams, where the ring's 64-byte slots cost a copy into and
// out of each slot and a buffer at each end, so medium payloads cross
// much faster through a plain buffer (docs/benchmarks.md, "Bulk buffers"
// in section "Shared memory: headers not copied whole"). A pending bundle of Queue's longer
// than a slot goes the same way as a bulk bundle, whose frames the
// receiver reads where they lie.
//
// Invariants. The sender allocates in order, under the outbox's lock,
// from head, a byte count that only grows (process-local); a payload takes
// a whole number of cache lines, and never wraps: if it does not fit
// before the end of the area, the rest of the area is skipped. Each bulk
// frame carries the payload's offset and end, head after its allocation
// (skip included). The receiver delivers bulk frames in ring order, so
// ends only grow; after a frame's Deliver returns, and before it lets go
// of the rings or after a quarter of the area, it stores the last end
// into the consumed word (its own cache line, written only by the
// receiver). A sender that polled since its last bulk frame and finds
// everything consumed starts a payload of restartMin or more again at the
// area's start (a skip), whose lines it wrote last. The sender may
// overwrite bytes below consumed + bulkBytes only: it
// waits, loading consumed, until head + need - consumed ≤ bulkBytes. An
// allocation whose frame never reaches the ring (ctx ended, peer lost) is
// covered by the next frame's end, so nothing leaks. A frame whose offset,
// length or end does not fit the area is refused as malformed, never read
// outside it.

const (
	// bulkBytes is the data area of one ordered pair's bulk buffer: four
	// payloads of bulkMax, so that several are in flight at once.
	// Payloads up to 64 KiB go here rather than be pulled because, where a
	// system call costs microseconds, a pull's call costs more than the
	// second copy at those sizes; beyond that pulls win
	// (docs/benchmarks.md, section "Shared memory on a new host",
	// 2026-11-25). Only the pages a pair touches take memory (tmpfs).
	bulkBytes = 256 << 10
	// bulkRegion is the bulk buffer in the segment: the consumed word's
	// line, then the data area.
	bulkRegion = line + bulkBytes
	// bulkMax is the longest payload sent through the bulk buffer; longer
	// frames go through the ring in chunks (comm pulls most of those).
	bulkMax = bulkBytes / 4
	// bulkMin is the longest frame (header and payload) that still goes
	// through the ring's slots: two slots beat the bulk buffer's extra
	// frame, three no longer (docs/benchmarks.md, "Thresholds" in section
	// "Shared memory: headers not copied whole", 2026-11-22).
	bulkMin = 2 * ring.SlotPayload
	// restartMin is the shortest payload for which a sender looks whether
	// it may start again at the area's start: the look loads a line the
	// receiver wrote, which cost small frames more than it saved (same
	// section as bulkMin).
	restartMin = 512
	// bulkMark and bulkSize are the bulk frame's first byte and length.
	bulkMark = 0xA9
	bulkSize = 48
	// bulkBundle in a bulk frame's byte 3 says its payload is a bundle.
	bulkBundle = 1
)

// bulkOut is the sending end of a bulk buffer; outbox.mu guards it.
type bulkOut struct {
	data     []byte  // nil until the first bulk frame
	consumed *uint64 // the receiver's word
	head     uint64  // bytes allocated so far
	tail     uint64  // consumed, as last loaded
	polls    uint64  // Endpoint.polls at the last look at consumed
}

// bulkIn is the receiving end of a bulk buffer; Endpoint.rx guards it.
type bulkIn struct {
	data      []byte
	consumed  *uint64
	end       uint64 // the last delivered frame's end
	published uint64 // the consumed count last stored
	dirty     bool   // end > published: in Endpoint.bulkDirty
}

// sendBulk copies payload into the bulk buffer to peer and writes a bulk
// frame for it to the ring; with bundle set, payload is whole frames back
// to back (a bundle, frame.go) and h is ignored. The caller holds o.mu and
// the ring is open; len(payload) ≤ bulkMax.
func (e *Endpoint) sendBulk(ctx context.Context, peer int, o *outbox, h frame.Header, payload []byte, bundle bool) error {
	slot, off, end, err := e.bulkReserve(ctx, peer, o, payload)
	if err != nil {
		return err
	}
	putBulk(slot, h, len(payload), off, end, bundle)
	e.bulkCommit(peer, o)
	return nil
}

// bulkReserve copies payload into the bulk buffer to peer and claims the
// ring slot for its bulk frame, which the caller writes (putBulk, at off,
// through end) and then commits (bulkCommit). The caller holds o.mu and
// the ring is open; len(payload) ≤ bulkMax.
func (e *Endpoint) bulkReserve(ctx context.Context, peer int, o *outbox, payload []byte) (slot []byte, off int, end uint64, err error) {
	b := &o.bulk
	if b.data == nil {
		b.data, b.consumed = e.seg.bulkData(e.cfg.Rank, peer), e.seg.bulkConsumed(e.cfg.Rank, peer)
	}
	if off, end, err = e.bulkAlloc(ctx, peer, b, len(payload)); err != nil {
		return nil, 0, 0, err
	}
	copy(b.data[off:off+len(payload)], payload)
	slot, err = e.claim(ctx, peer, o.r, bulkSize) // on error the next frame's end covers the allocation
	return slot, off, end, err
}

// bulkCommit publishes the bulk frame bulkReserve claimed.
func (e *Endpoint) bulkCommit(peer int, o *outbox) {
	o.r.Commit(bulkSize)
	e.wake(peer)
}

// bulkAlloc allocates n bytes, rounded up to whole lines, waiting for the
// receiver to consume enough, and returns their offset in the data area
// and the allocation's end.
func (e *Endpoint) bulkAlloc(ctx context.Context, peer int, b *bulkOut, n int) (off int, end uint64, err error) {
	size := uint64(roundUp(n, line))
	skip := uint64(0)
	if o := b.head % bulkBytes; o+size > bulkBytes || size >= restartMin && o >= size && b.restart(e.pollCount()) {
		skip = bulkBytes - o
	}
	need := skip + size
	var bo ring.Backoff
	for b.head+need-b.tail > bulkBytes {
		if v, ok := b.loadTail(); !ok {
			return 0, 0, e.badConsumed(peer, b, v)
		}
		if b.head+need-b.tail <= bulkBytes {
			break
		}
		if bo.Wait() {
			if err := e.waitErr(ctx, peer); err != nil {
				return 0, 0, err
			}
		}
	}
	off = int((b.head + skip) % bulkBytes)
	b.head += need
	return off, b.head, nil
}

// restart reports whether the sender may start again at the area's start
// because everything is consumed, given the rank's poll count: it looks
// only if the rank polled since it last looked, perhaps for an answer to
// its last frame (a ping-pong), since the look loads the receiver's line;
// the area's start holds lines this CPU wrote last time.
func (b *bulkOut) restart(polls uint64) bool {
	if polls == b.polls {
		return false
	}
	b.polls = polls
	_, ok := b.loadTail()
	return ok && b.tail == b.head
}

// loadTail loads the receiver's consumed count into tail and returns it,
// unless it cannot be true: it only grows, and never past head, the bytes
// produced. A bad value (the segment overwritten) leaves tail as it was;
// waiting for it to change would stall for ever.
func (b *bulkOut) loadTail() (uint64, bool) {
	v := atomic.LoadUint64(b.consumed)
	if v < b.tail || v > b.head {
		return v, false
	}
	b.tail = v
	return v, true
}

// badConsumed loses peer, whose consumed count v loadTail refused, and
// returns the error.
func (e *Endpoint) badConsumed(peer int, b *bulkOut, v uint64) error {
	e.markLost(peer, fmt.Errorf("%w: bulk buffer %d→%d: consumed count %d outside [%d, %d]: it only grows, and never past the bytes produced",
		ErrBadSegment, e.cfg.Rank, peer, v, b.tail, b.head))
	return e.lostErr(peer)
}

// putBulk writes the bulk frame of h for a payload of n bytes at off,
// allocated through end; or, for a bundle, the bulk frame of n bytes of
// frames (kind 0, flag byte 3 set).
func putBulk(b []byte, h frame.Header, n, off int, end uint64, bundle bool) {
	if bundle {
		putBulkFields(b, 0, 0, bulkBundle, 0, 0, n, 0, 0, off, end)
		return
	}
	putBulkFields(b, h.Kind, h.Flags, 0, h.Comm, h.Tag, n, h.Seq, h.Aux, off, end)
}

// putBulkEager writes the bulk frame of an eager message of communicator
// comm with tag and n bytes, from the fields.
func putBulkEager(b []byte, comm uint32, tag int32, n, off int, end uint64) {
	putBulkFields(b, frame.Eager, 0, 0, comm, tag, n, 0, uint64(n), off, end)
}

// putBulkFields writes a bulk frame from its fields (marks is byte 3: 0,
// or bulkBundle): the one encoder behind putBulk and putBulkEager.
func putBulkFields(b []byte, kind frame.Kind, flags, marks byte, comm uint32, tag int32, n int, seq, aux uint64, off int, end uint64) {
	b = b[:bulkSize]
	b[0], b[1], b[2], b[3] = bulkMark, byte(kind), flags, marks
	binary.LittleEndian.PutUint32(b[4:], comm)
	binary.LittleEndian.PutUint32(b[8:], uint32(tag))
	binary.LittleEndian.PutUint32(b[12:], uint32(n))
	binary.LittleEndian.PutUint64(b[16:], seq)
	binary.LittleEndian.PutUint64(b[24:], aux)
	binary.LittleEndian.PutUint32(b[32:], uint32(off))
	binary.LittleEndian.PutUint32(b[36:], 0)
	binary.LittleEndian.PutUint64(b[40:], end)
}

// deliverBulk delivers the bulk frame at the start of msg, which came on
// the ring from p, from where its payload lies, and then marks the
// payload consumed. It returns the frame's length. The caller holds e.rx.
func (e *Endpoint) deliverBulk(p int, msg []byte) (int, error) {
	if len(msg) < bulkSize {
		return 0, fmt.Errorf("shm: malformed frame: %d-byte bulk frame", len(msg))
	}
	in := &e.in[p].bulk
	h := frame.Header{
		Kind: frame.Kind(msg[1]), Flags: msg[2],
		Comm:   binary.LittleEndian.Uint32(msg[4:]),
		Source: int32(p),
		Tag:    int32(binary.LittleEndian.Uint32(msg[8:])),
		Seq:    binary.LittleEndian.Uint64(msg[16:]),
		Aux:    binary.LittleEndian.Uint64(msg[24:]),
	}
	n := int(binary.LittleEndian.Uint32(msg[12:]))
	off := int(binary.LittleEndian.Uint32(msg[32:]))
	end := binary.LittleEndian.Uint64(msg[40:])
	bundle := msg[3] == bulkBundle
	switch {
	case msg[3] > bulkBundle:
		return 0, fmt.Errorf("shm: malformed frame: bulk frame flags %#x", msg[3])
	case !bundle && !h.Kind.User():
		return 0, fmt.Errorf("shm: malformed frame: unknown kind %d", msg[1])
	case n > bulkMax || n > e.cfg.MaxPayload || off > bulkBytes-n:
		return 0, fmt.Errorf("shm: malformed frame: bulk payload of %d bytes at %d", n, off)
	case end <= in.end || end-in.end > bulkBytes:
		return 0, fmt.Errorf("shm: malformed frame: bulk end %d after %d", end, in.end)
	}
	if in.data == nil {
		in.data, in.consumed = e.seg.bulkData(p, e.cfg.Rank), e.seg.bulkConsumed(p, e.cfg.Rank)
	}
	if bundle {
		if err := e.frames(p, nil, in.data[off:off+n]); err != nil {
			return 0, err
		}
	} else if h.Kind == frame.Eager && h.Flags == 0 && h.Seq == 0 && h.Aux == uint64(n) {
		e.deliverOne(p, key{comm: h.Comm, tag: h.Tag}, in.data[off:off+n])
	} else {
		e.cfg.Deliver(p, h, in.data[off:off+n])
	}
	in.end = end
	switch {
	case end-in.published >= bulkBytes/4:
		in.publish()
	case !in.dirty:
		in.dirty = true
		e.bulkDirty = append(e.bulkDirty, p)
	}
	return bulkSize, nil
}

// publish stores how far the buffer is consumed.
func (in *bulkIn) publish() {
	atomic.StoreUint64(in.consumed, in.end)
	in.published = in.end
}

// publishBulk publishes the consumed counts the last poll advanced. The
// rx holder calls it before it lets go, so that a sender waiting for room
// sees it as soon as the frames are delivered, without a store (and a
// cache line handed over) per frame while frames stream in.
func (e *Endpoint) publishBulk() {
	for _, p := range e.bulkDirty {
		in := &e.in[p].bulk
		if in.dirty { // reportLost clears a lost peer's inbox, dirty too
			in.publish()
			in.dirty = false
		}
	}
	e.bulkDirty = e.bulkDirty[:0]
}
