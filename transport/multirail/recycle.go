package multirail

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
// the Send that writes its chunk outside mu. holds counts them; the
// second to let go (settle, or Send after its write) frees the record.
// The acknowledgement cannot arrive before the write, but nothing in Go's
// memory model says so, hence Send's own let-go under mu. A message whose
// chunk the rail's writer goroutine writes (the rail was busy) is never
// recycled: the writer does not say when it is done with the bytes.

// Bounds of the free list: records, and the longest copy kept with one.
const (
	freeRecords = 16
	freeBufMax  = 4 << 10
)

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

// letGo is one of m's two users letting go of it (holds); the last puts
// it on the free list, cleared. The caller holds mu.
func (l *Link) letGo(m *sendMsg) {
	if m.holds--; m.holds > 0 || len(l.free) == freeRecords {
		return
	}
	buf := m.buf[:0]
	if cap(buf) > freeBufMax {
		buf = nil
	}
	*m = sendMsg{buf: buf}
	l.free = append(l.free, m)
}
