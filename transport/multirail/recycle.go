package multirail

import "sync/atomic"

// Recycling the records of eager messages. A small message that a Send
// writes itself (postWhole, a direct write) needs a record (sendMsg) for
// its pending chunk and a copy of its bytes, kept until the peer
// acknowledges it; a record allocated for every message, and a copy
// allocated for every one longer than inlineLen, made the garbage
// collector run every few thousand messages of a ping-pong, and each run
// took the CPU from the spinning receiver or its peer: a tail of slow
// round trips (docs/benchmarks.md, "Rails: a rail's socket out of the
// netpoller"). So such a record, with its copy's array, goes back to a
// short free list once nothing uses it, and the next message takes it.
//
// Two parties use the record: the Link's books (pending until the chunk
// is acknowledged, unsettled until the messages before it are too) and
// the Send that writes its chunk outside mu. holds counts them,
// atomically; the second to let go (settle, or Send after its write)
// frees the record. The acknowledgement cannot arrive before the write,
// but nothing in Go's memory model says so, hence Send's own let-go: its
// atomic decrement orders its last use of the record before the reuse.
// It takes mu only when it is the last, which the acknowledgement's
// coming after the write makes rare: a stream of Sends does not contend
// for mu twice a message. A message whose chunk the rail's writer
// goroutine writes (the rail was busy, or the chunk is sent again after
// its rail failed: keep) is never recycled: the writer
// does not say when it is done with the bytes.

// Bounds of the free lists: records, and the longest copy kept with
// one; buffers of messages received, and the longest kept.
const (
	freeRecords = 16
	freeBufMax  = 4 << 10
)

// The same goes for the messages received: each arrives in a slice of
// its own, which Recv hands to the caller, and at a kilobyte a message
// those slices made most of a ping-pong's garbage. A caller done with a
// message may hand it back (Link.Release), and the rails' decoders take
// the next messages' slices from those handed back.

// newSendMsg returns a record, recycled if one is free. The caller holds
// mu.
func (l *Link) newSendMsg() *sendMsg {
	n := len(l.free)
	if n == 0 {
		return &sendMsg{}
	}
	m := l.free[n-1]
	l.free[n-1] = nil
	l.free = l.free[:n-1]
	return m
}

// keep makes m's record one that is never recycled, once a chunk of it
// is sent again (Link.railFailed): the resent chunk waits in a rail's
// queue, whose writer does not say when it is done with the bytes, and
// the acknowledgement of the first copy may still arrive (read from the
// failed rail's buffer) before that write, settle m and free the record
// for the next message, whose bytes would then leave under the resent
// chunk's header. A third hold, never let go, keeps holds above zero.
// The caller holds mu.
func keep(m *sendMsg) {
	if atomic.LoadInt32(&m.holds) > 0 {
		atomic.AddInt32(&m.holds, 1)
	}
}

// letGo is one of m's two users letting go of it (holds); it reports
// whether that was the last, who must then recycle m.
func letGo(m *sendMsg) bool { return atomic.AddInt32(&m.holds, -1) == 0 }

// recycle puts m, which nobody uses any more, on the free list, cleared,
// unless the list is full. The caller holds mu.
func (l *Link) recycle(m *sendMsg) {
	if len(l.free) == freeRecords {
		return
	}
	buf := m.buf[:0]
	if cap(buf) > freeBufMax {
		buf = nil
	}
	*m = sendMsg{buf: buf}
	l.free = append(l.free, m)
}

// Release hands back msg, a message Recv returned, once the caller (and
// whatever it gave msg to) is done with it: the Link may receive a later
// message into the same array. It is optional, and worth it for a caller
// that receives many messages, short or long: of the long ones the Link
// keeps a few arrays, at most twice Config.Window bytes in all until it
// closes, so that a stream of long messages is received into memory
// already touched rather than fresh from the system. One not released is
// left to the garbage collector. Release each message at most once, and
// use it no more after, or a later message's bytes will change under it.
func (l *Link) Release(msg []byte) { l.rbufs.put(msg) }
