package ring

// Invariants:
//
// Positions are unbounded uint64 slot counts; position p lives in slot
// p & (N-1), N the slot count. The sender owns head (next position to
// write) and the receiver owns tail (next position to read); both are
// process-local. The region holds only integers.
//
// Who writes which shared word:
//   - header words: the creator, once, in New, magic last; read-only after.
//   - a slot (control word and payload): only the sender. Besides writing
//     messages, the sender may store into the payload of any free slot
//     (position p with head ≤ p < cachedTail + N) at any time: after each
//     send it zeroes the last payload word of the slot at head (warm).
//   - the receiver line (recvPos): only the receiver.
//
// A message of L bytes occupies k = max(1, ceil(L/56)) consecutive
// positions h..h+k-1. The sender fills the payloads and the continuation
// control words of h+1..h+k-1 first, then stores the control word of h
// (sequence h+1, length L) last with an atomic store. The receiver loads the
// control word of tail atomically and reads payloads only once it carries
// sequence tail+1. Go's sync/atomic operations are sequentially consistent:
// a load that observes a store synchronises with it, so every plain write
// the sender made before the store (all k payloads) happens before every
// read the receiver makes after the load. The receiver therefore never sees
// a partial message, and the race detector agrees.
//
// Flow control: the receiver stores tail into recvPos (atomic release)
// only after it has copied the payloads out, so a sender that loads recvPos
// = t and then overwrites positions < t + N races with nothing. The
// receiver publishes only when tail has advanced N/2 positions past its
// last publication, so recvPos ≥ tail - (N/2 - 1) after every receive; a
// message of at most N/2 slots (MaxMessage) therefore always fits once the
// receiver has drained the ring, and Send cannot deadlock. The sender keeps
// a cached copy of recvPos and loads the shared line only when the cached
// value says the ring is full, so in steady state each side touches the
// other's line once per N/2 slots.
//
// Wrap-around and epochs: a control word's low 32 bits hold uint32(p+1)
// for the position p it was last written at; zero means never written. A
// slot written for position p still holds p-N+1 (or 0 on the first lap)
// until the sender reaches p, and N ≤ 2^24 < 2^32, so "this lap" and "the
// last lap" never compare equal even after uint32 wrap. Any other value is
// foreign or corrupt and yields ErrCorrupt rather than a hang or a bogus
// message.

import (
	"sync/atomic"
	"unsafe"
)

// Control word layout.
const (
	seqMask  = 1<<32 - 1
	lenShift = 32
	lenMask  = 1<<31 - 1
	contFlag = 1 << 63 // continuation slot of a multi-slot message
)

// Padding that puts the shared fields, the sender's and the receiver's
// fields each on their own cache line(s): every part starts at an offset
// that is a multiple of 64 and Ring's size is a multiple of 64, so the
// allocator (whose 64-multiple size classes start objects on 64-byte
// boundaries) never lets the sender's writes invalidate the receiver's
// line or vice versa. TestRingPadding checks this.
const (
	padShared   = (cacheLine - unsafe.Sizeof(shared{})%cacheLine) % cacheLine
	padSender   = (cacheLine - unsafe.Sizeof(sender{})%cacheLine) % cacheLine
	padReceiver = (cacheLine - unsafe.Sizeof(receiver{})%cacheLine) % cacheLine
)

// Ring is one end (or both ends) of a single-producer single-consumer ring
// on a byte region. At most one goroutine sends and at most one receives at
// a time; the same goroutine may do both. A Ring must not be copied.
type Ring struct {
	shared
	_   [padShared]byte
	snd sender
	_   [padSender]byte
	rcv receiver
	_   [padReceiver]byte
}

// shared is read-only after construction; both sides read it.
type shared struct {
	region  []byte
	slots   unsafe.Pointer // &region[slotsOff]
	recvPos *uint64        // receiver line, in the region
	n       uint64         // slot count
	mask    uint64         // n - 1
	half    uint64         // n / 2: max slots per message, publish period
}

// sender is touched only by the sender goroutine.
type sender struct {
	head       uint64 // next position to write
	cachedTail uint64 // last recvPos the sender loaded
	claimed    int    // size of the Claim a Commit may publish, plus one; 0 for none
}

// receiver is touched only by the receiver goroutine.
type receiver struct {
	tail      uint64 // next position to read
	published uint64 // last value stored into recvPos
	peeked    uint64 // one past the position of the last message Peek returned in place
}

func newRing(region []byte, n uint64) *Ring {
	r := &Ring{shared: shared{
		region:  region,
		slots:   unsafe.Pointer(&region[slotsOff]),
		recvPos: word(region, recvOff),
		n:       n, mask: n - 1, half: n / 2,
	}}
	pos := atomic.LoadUint64(r.recvPos)
	r.snd = sender{head: pos, cachedTail: pos}
	r.rcv = receiver{tail: pos, published: pos}
	return r
}

// Slots returns the slot count. Any goroutine may call it.
func (r *Ring) Slots() int { return int(r.n) }

// MaxMessage returns the longest message Send accepts: N/2 slots of
// payload. Any goroutine may call it.
func (r *Ring) MaxMessage() int { return int(r.half) * SlotPayload }

// slotsFor returns the slots a message of length l occupies. It is one
// expression, which keeps Claim, its caller on the sender's fast path,
// within the inliner's budget.
func slotsFor(l int) uint64 {
	return uint64(max(1, (l+SlotPayload-1)/SlotPayload))
}

// ctl returns the control word of position p's slot.
func (r *Ring) ctl(p uint64) *uint64 {
	return (*uint64)(unsafe.Add(r.slots, (p&r.mask)*SlotSize))
}

// payload returns position p's 56 payload bytes.
func (r *Ring) payload(p uint64) []byte {
	return unsafe.Slice((*byte)(unsafe.Add(r.slots, (p&r.mask)*SlotSize+ctlSize)), SlotPayload)
}
