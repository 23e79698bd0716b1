package group

import (
	"bytes"
	"context"
	"fmt"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/ring"
)

// member is one replica's end of a Team.
//
// Concurrency: in[from] is read only by this member's replica goroutine,
// out[to] and backlog are written only by it (each ring has one sender,
// the member at its tail, and one receiver, the member at its head).
// asleep, stopped and received are atomic: asleep is stored by the owner
// and loaded by senders, who ring bell after they wrote; the owner
// stores asleep before its last poll and senders load it after their
// write, so (sequentially consistent atomics) either the poll sees the
// frame or the sender sees asleep and rings. stopped is stored once, when
// the replica's Run returns. The fields are grouped by who writes them,
// each group on lines of its own, so that a sender's loads do not miss
// on lines the member keeps writing.
type member struct {
	// Set before the replicas run, read-only after.
	id      int
	replica *Replica
	in, out []*ring.Ring
	_       [64]byte

	// The member's goroutine's own.
	backlog [][][]byte // frames waiting for room on out[to], in order
	waiting int        // frames in backlog, all destinations
	buf     []byte     // a frame longer than a slot, received
	values  slab       // the received messages' values
	_       [64]byte

	// Written rarely by the member, read by its senders.
	asleep  atomic.Bool
	stopped atomic.Bool
	bell    chan struct{}
	_       [64]byte

	received atomic.Int64 // broadcast frames from other origins
}

// teamNet is replica id's Net on a Team; its methods run on that
// replica's goroutine.
type teamNet struct {
	t  *Team
	id int
}

// Send implements Net. A Send to a replica whose Run returned fails with
// ErrStopped.
func (n teamNet) Send(ctx context.Context, to int, frame []byte) error {
	if to < 0 || to >= len(n.t.members) || to == n.id {
		return fmt.Errorf("%w: send from replica %d to %d in a team of %d", ErrConfig, n.id, to, len(n.t.members))
	}
	if n.t.members[to].stopped.Load() {
		return fmt.Errorf("%w: replica %d, sending from %d", ErrStopped, to, n.id)
	}
	n.t.sendRaw(n.id, to, frame)
	return nil
}

// Broadcast implements Net: down this replica's tree, or, for a frame
// longer than a link carries, to every other replica's inbox.
func (n teamNet) Broadcast(ctx context.Context, frame []byte) error {
	if len(frame) > teamMaxFrame {
		for _, m := range n.t.members {
			if m.id != n.id {
				m.replica.tryDeliver(frame)
			}
		}
		return nil
	}
	for _, c := range n.t.kids[n.id][n.id] {
		n.t.forward(n.id, n.id, c, frame)
	}
	return nil
}

// maxFrame is the longest frame a link carries; broadcasts are cut to it.
func (n teamNet) maxFrame() int { return teamMaxFrame }

// forward sends a tree frame of origin root from replica from to its
// child c, or to c's children in that tree when c's Run returned.
func (t *Team) forward(root, from, c int, frame []byte) {
	if !t.members[c].stopped.Load() {
		t.sendRaw(from, c, frame)
		return
	}
	for _, cc := range t.kids[root][c] {
		t.forward(root, from, cc, frame)
	}
}

// sendRaw puts frame on the link from -> to, behind the link's backlog,
// and wakes to if it sleeps. A frame longer than a link's message goes to
// to's inbox, dropped if the inbox is full (the protocol sends it again).
func (t *Team) sendRaw(from, to int, frame []byte) {
	src, dst := t.members[from], t.members[to]
	switch {
	case len(frame) > teamMaxFrame:
		dst.replica.tryDeliver(frame)
	case len(src.backlog[to]) > 0:
		src.queue(to, frame)
	default:
		if ok, _ := src.out[to].TrySend(frame); !ok {
			src.queue(to, frame)
		}
	}
	t.wake(to)
}

// backlogLimit bounds a link's backlog: past it frames are dropped, as
// by a lossy link, and the protocol sends them again.
const backlogLimit = 4096

func (m *member) queue(to int, frame []byte) {
	if len(m.backlog[to]) < backlogLimit {
		m.backlog[to] = append(m.backlog[to], bytes.Clone(frame))
		m.waiting++
	}
}

// flushBacklog sends what waits for room, in order, and reports whether
// it sent anything.
func (t *Team) flushBacklog(m *member) bool {
	if m.waiting == 0 {
		return false
	}
	sent := false
	for to, q := range m.backlog {
		if len(q) > 0 && t.members[to].stopped.Load() {
			m.waiting -= len(q)
			m.backlog[to] = q[:0]
			continue
		}
		k := 0
		for k < len(q) {
			if ok, _ := m.out[to].TrySend(q[k]); !ok {
				break
			}
			k++
		}
		if k > 0 {
			sent = true
			m.waiting -= k
			m.backlog[to] = append(q[:0], q[k:]...)
			t.wake(to)
		}
	}
	return sent
}

func (t *Team) wake(to int) {
	if d := t.members[to]; d.asleep.Load() {
		select {
		case d.bell <- struct{}{}:
		default:
		}
	}
}
