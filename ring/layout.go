package ring

import (
	"fmt"
	"math/bits"
	"sync/atomic"
	"unsafe"
)

// Region layout, all offsets from the start of the region:
//
//	[0, 64)      header line: magic, version, slot size, slot count (creator writes once)
//	[64, 128)    receiver line: the receiver's published position (receiver writes)
//	[128, ...)   slots × 64 bytes: control word + 56 payload bytes (sender writes)
//
// The region holds no Go pointers, only integers, so it may live in memory
// shared between processes.
const (
	// SlotSize is the size of one slot: one cache line.
	SlotSize = 64
	// SlotPayload is the payload a slot carries after its control word.
	SlotPayload = SlotSize - ctlSize
	// MinSlots and MaxSlots bound the slot count (a power of two).
	MinSlots = 2
	MaxSlots = 1 << 24
	// Align is the alignment a region must have; 64 is better (the lines
	// below then coincide with cache lines), 8 is required by atomics.
	Align = 8

	ctlSize    = 8
	cacheLine  = 64
	headerOff  = 0
	headerSize = 4 * 8
	recvOff    = headerOff + (headerSize+cacheLine-1)/cacheLine*cacheLine
	slotsOff   = recvOff + cacheLine

	magic   = 0x31474e4952584c50 // "PLXRING1", little-endian
	version = 1
)

// Header word offsets.
const (
	magicOff    = headerOff
	versionOff  = headerOff + 8
	slotSizeOff = headerOff + 16
	slotCntOff  = headerOff + 24
)

// RegionSize returns the bytes needed for a ring of slots slots, a power of
// two in [MinSlots, MaxSlots], or -1 for any other count.
func RegionSize(slots int) int {
	if slots < 0 || !validSlots(uint64(slots)) {
		return -1
	}
	return slotsOff + slots*SlotSize
}

func validSlots(n uint64) bool {
	return n >= MinSlots && n <= MaxSlots && bits.OnesCount64(n) == 1
}

// word returns the 8-byte word at off; off must be a multiple of 8 inside
// a region checked by checkRegion.
func word(region []byte, off int) *uint64 {
	return (*uint64)(unsafe.Pointer(&region[off]))
}

// checkRegion validates alignment and size for a ring of slots slots.
func checkRegion(region []byte, slots uint64) error {
	if !validSlots(slots) {
		return fmt.Errorf("%w: slot count %d is not a power of two in [%d, %d]",
			ErrBadRegion, slots, MinSlots, MaxSlots)
	}
	if len(region) < RegionSize(int(slots)) {
		return fmt.Errorf("%w: %d bytes, a ring of %d slots needs %d",
			ErrBadRegion, len(region), slots, RegionSize(int(slots)))
	}
	return checkAlign(region)
}

func checkAlign(region []byte) error {
	if len(region) == 0 {
		return fmt.Errorf("%w: empty region", ErrBadRegion)
	}
	if a := uintptr(unsafe.Pointer(&region[0])) % Align; a != 0 {
		return fmt.Errorf("%w: region starts %d bytes past an %d-byte boundary", ErrBadRegion, a, Align)
	}
	return nil
}

// New initialises region as an empty ring of slots slots and returns it.
// Only the creator calls New, once, before any Attach; the returned Ring
// may serve as the sender, the receiver, or both (from one goroutine each).
// The magic number is stored last, so a concurrent Attach either sees a
// complete header or reports the region uninitialised.
func New(region []byte, slots int) (*Ring, error) {
	if slots < 0 {
		return nil, fmt.Errorf("%w: negative slot count %d", ErrBadRegion, slots)
	}
	if err := checkRegion(region, uint64(slots)); err != nil {
		return nil, err
	}
	atomic.StoreUint64(word(region, magicOff), 0)
	clear(region[versionOff:RegionSize(slots)])
	*word(region, versionOff) = version
	*word(region, slotSizeOff) = SlotSize
	*word(region, slotCntOff) = uint64(slots)
	atomic.StoreUint64(word(region, magicOff), magic)
	return newRing(region, uint64(slots)), nil
}

// Attach validates a region initialised by New (possibly in another
// process) and returns a Ring on it whose positions start at the
// receiver's published position. Attach before any message is sent: the
// sender's position is not stored in the region, so a Ring attached to a
// ring in use agrees with its peer only if all sent messages were consumed
// and published.
func Attach(region []byte) (*Ring, error) {
	if len(region) < slotsOff {
		return nil, fmt.Errorf("%w: %d bytes is smaller than the %d-byte header", ErrBadRegion, len(region), slotsOff)
	}
	if err := checkAlign(region); err != nil {
		return nil, err
	}
	if err := checkHeader(region); err != nil {
		return nil, err
	}
	slots := *word(region, slotCntOff)
	if err := checkRegion(region, slots); err != nil {
		return nil, err
	}
	return newRing(region, slots), nil
}

func checkHeader(region []byte) error {
	if m := atomic.LoadUint64(word(region, magicOff)); m != magic {
		return fmt.Errorf("%w: magic %#x, want %#x (not a ring, or not initialised)", ErrBadRegion, m, uint64(magic))
	}
	if v := *word(region, versionOff); v != version {
		return fmt.Errorf("%w: layout version %d, want %d", ErrBadRegion, v, version)
	}
	if s := *word(region, slotSizeOff); s != SlotSize {
		return fmt.Errorf("%w: slot size %d, want %d", ErrBadRegion, s, SlotSize)
	}
	return nil
}

// NewHeap returns a ring of slots slots on a fresh 64-byte-aligned heap
// allocation. It panics if slots is not a power of two in
// [MinSlots, MaxSlots]: the count is the programmer's, not an input's.
func NewHeap(slots int) *Ring {
	size := RegionSize(slots)
	if size < 0 {
		panic(fmt.Sprintf("ring: NewHeap(%d): slot count must be a power of two in [%d, %d]", slots, MinSlots, MaxSlots))
	}
	r, err := New(alignedBytes(size, cacheLine), slots)
	if err != nil {
		panic(err) // unreachable: the region is sized and aligned above
	}
	return r
}

// alignedBytes returns size zeroed bytes starting on an align boundary.
// The backing array is []uint64, so it holds no pointers for the GC to scan.
func alignedBytes(size, align int) []byte {
	buf := make([]uint64, (size+align)/8)
	b := unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), len(buf)*8)
	skip := (align - int(uintptr(unsafe.Pointer(&b[0]))%uintptr(align))) % align
	return b[skip : skip+size : skip+size]
}
