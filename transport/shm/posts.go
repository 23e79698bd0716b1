package shm

import (
	"fmt"
	"sync/atomic"
	"unsafe"
)

// The collective area: besides rings and signal counters, each rank owns
// PostLanes × PostDepth cache lines of the segment, its posts. A post is
// a sequence word and up to PostBytes of payload on one line, so a reader
// that sees the word sees the payload with the same miss, and n readers
// polling n writers' lines issue independent loads whose misses overlap —
// what a flat barrier, broadcast or allreduce of a few bytes needs
// (docs/design/collectives.md, "Posts across ranks").
//
// Post number seq of a lane goes to the line seq mod PostDepth. The
// writer stores the payload, then the line's word atomically (release):
// PostWord(seq) plus the payload's length, or plus MarkLen for a mark; a
// reader loads the word (acquire) and reads the payload once the word
// has reached PostWord of the post it waits for, and can tell from
// PostLen whether the writer posted the length it expects. Words only
// grow.
//
// Reuse rule, kept by the caller (comm/collective): a rank writes the
// payload of post k only once every rank has posted k-PostDepth+1, since
// ranks post k-PostDepth+1 only after they finished reading post
// k-PostDepth, the last one on that line. Marks (a word without payload)
// may be written at any time: they never change a payload.
//
// Sleeping ranks: a writer, after storing the word, wakes every rank
// whose sleep word is set (Dekker's pattern, as for frames in layout.go):
// a waiter that sleeps on its doorbell stores its sleep word before its
// last look at the posts, so either it sees the post or the writer sees
// it asleep.

// Collective area geometry.
const (
	// PostBytes is the most payload one post carries.
	PostBytes = line - 8
	// PostDepth is how many lines each rank has per lane, used in turn.
	PostDepth = 4
	// PostLanes is how many independent lanes of posts each rank has,
	// one per communicator that uses them.
	PostLanes = 4
	postLines = PostLanes * PostDepth
	// MarkLen is PostLen of a mark, a post without payload.
	MarkLen = 0xff
)

// PostWord returns the lowest word of post seq: a line's word is at least
// PostWord(seq) once its owner posted seq (or a later post on the line).
func PostWord(seq uint64) uint64 { return seq << 8 }

// PostLen returns the payload length a word says its post has, or
// MarkLen.
func PostLen(word uint64) int { return int(word & 0xff) }

// Posts is one lane of the collective area as one rank sees it: its own
// posts to write and every rank's to read.
//
// Concurrency contract: one goroutine at a time may write (Write, Mark);
// any goroutine may read. The memory stays harmless to read and write
// after the Endpoint's Close (Close leaves harmless memory in the
// segment's place), but then nobody else sees it.
type Posts struct {
	e     *Endpoint
	mem   []byte
	lane  int
	rank  int
	ranks int
}

// Posts returns lane of the collective area. Every rank of the segment
// that takes part must use the same lane for the same sequence of posts.
func (e *Endpoint) Posts(lane int) (*Posts, error) {
	if lane < 0 || lane >= PostLanes {
		return nil, fmt.Errorf("shm: post lane %d outside [0, %d)", lane, PostLanes)
	}
	return &Posts{e: e, mem: e.seg.mem, lane: lane, rank: e.cfg.Rank, ranks: e.cfg.Size}, nil
}

// Ranks returns the number of ranks with posts.
func (p *Posts) Ranks() int { return p.ranks }

// Rank returns the rank whose posts Write and Mark write.
func (p *Posts) Rank() int { return p.rank }

// Word returns the word of rank's line for post seq: it is at least
// PostWord(seq) once rank has written or marked that post (or a later
// one on the line). rank must be in [0, Ranks()).
func (p *Posts) Word(rank int, seq uint64) *atomic.Uint64 {
	off := p.e.seg.postAt(rank, p.lane, int(seq%PostDepth))
	return (*atomic.Uint64)(unsafe.Pointer(&p.mem[off]))
}

// Payload returns the payload bytes of rank's line for post seq, n of
// them (at most PostBytes): valid to read once Word(rank, seq) holds seq,
// until the writer reuses the line (see the reuse rule above).
func (p *Posts) Payload(rank int, seq uint64, n int) []byte {
	off := p.e.seg.postAt(rank, p.lane, int(seq%PostDepth)) + 8
	return p.mem[off : off+n : off+n]
}

// Write publishes payload as this rank's post seq and wakes sleeping
// ranks. The caller keeps the reuse rule. It fails for a payload longer
// than PostBytes.
func (p *Posts) Write(seq uint64, payload []byte) error {
	if len(payload) > PostBytes {
		return fmt.Errorf("shm: post of %d bytes by rank %d, limit %d", len(payload), p.rank, PostBytes)
	}
	copy(p.Payload(p.rank, seq, len(payload)), payload)
	p.publish(seq, uint64(len(payload)))
	return nil
}

// Mark publishes post seq without a payload (the line's payload stays as
// it was) and wakes sleeping ranks.
func (p *Posts) Mark(seq uint64) { p.publish(seq, MarkLen) }

// publish stores post seq's word, with n its length, and wakes sleepers.
func (p *Posts) publish(seq, n uint64) {
	p.Word(p.rank, seq).Store(PostWord(seq) | n)
	p.wakeAll()
}

// Warm stores zero into the last payload word of this rank's line for
// post seq, so that the line is this CPU's to write when the post is
// made: writing a line that readers hold costs a round trip to take it
// from them, which a warmed line pays between collectives rather than in
// one (as package ring warms its next slot). The caller must be allowed
// to write post seq's payload already (the reuse rule); readers never
// read the word before the post is made.
func (p *Posts) Warm(seq uint64) {
	off := p.e.seg.postAt(p.rank, p.lane, int(seq%PostDepth)) + line - 8
	*(*uint64)(unsafe.Pointer(&p.mem[off])) = 0
}

// wakeAll rings the doorbell of every other rank whose sleep word is set.
func (p *Posts) wakeAll() {
	if p.e.closing.Load() {
		return
	}
	for r := range p.ranks {
		if r != p.rank {
			p.e.wakeRank(r)
		}
	}
}
