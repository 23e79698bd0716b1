package ring

import (
	"errors"
	"testing"
	"unsafe"
)

func TestLayoutOffsets(t *testing.T) {
	if recvOff%cacheLine != 0 || slotsOff%cacheLine != 0 {
		t.Errorf("receiver line at %d, slots at %d: want multiples of %d", recvOff, slotsOff, cacheLine)
	}
	if recvOff < headerSize || slotsOff < recvOff+8 {
		t.Errorf("header [0,%d), receiver line at %d, slots at %d overlap", headerSize, recvOff, slotsOff)
	}
	if SlotPayload+ctlSize != SlotSize || SlotSize != cacheLine {
		t.Errorf("slot %d = %d payload + %d control, want one %d-byte line", SlotSize, SlotPayload, ctlSize, cacheLine)
	}
	for _, slots := range []int{2, 4, 1024, MaxSlots} {
		if got, want := RegionSize(slots), 128+64*slots; got != want {
			t.Errorf("RegionSize(%d) = %d, want %d", slots, got, want)
		}
	}
	for _, bad := range []int{-2, 0, 1, 3, 6, 2 * MaxSlots} {
		if got := RegionSize(bad); got != -1 {
			t.Errorf("RegionSize(%d) = %d, want -1", bad, got)
		}
	}
}

// TestRingPadding checks that the shared, sender and receiver parts of a
// Ring each start a cache line and that heap Rings are line-aligned.
func TestRingPadding(t *testing.T) {
	var r Ring
	for name, off := range map[string]uintptr{
		"shared": 0, "sender": unsafe.Offsetof(r.snd), "receiver": unsafe.Offsetof(r.rcv),
		"size": unsafe.Sizeof(r),
	} {
		if off%cacheLine != 0 {
			t.Errorf("%s at offset %d, want a multiple of %d", name, off, cacheLine)
		}
	}
	if unsafe.Offsetof(r.rcv)-unsafe.Offsetof(r.snd) < cacheLine {
		t.Errorf("sender and receiver fields share a line")
	}
	for range 8 {
		h := NewHeap(2)
		if p := uintptr(unsafe.Pointer(h)); p%cacheLine != 0 {
			t.Errorf("heap Ring at %#x, not line-aligned", p)
		}
		if p := uintptr(unsafe.Pointer(&h.region[0])); p%cacheLine != 0 {
			t.Errorf("heap region at %#x, not line-aligned", p)
		}
	}
}

func TestAttach(t *testing.T) {
	region := alignedBytes(RegionSize(8), cacheLine)
	tx, err := New(region, 8)
	if err != nil {
		t.Fatal(err)
	}
	rx, err := Attach(region[:len(region):len(region)])
	if err != nil {
		t.Fatal(err)
	}
	if rx.Slots() != 8 || rx.MaxMessage() != 4*SlotPayload {
		t.Fatalf("attached ring: %d slots, max %d", rx.Slots(), rx.MaxMessage())
	}
	buf := make([]byte, rx.MaxMessage())
	for i := range 100 {
		msg := pattern(i%(rx.MaxMessage()+1), byte(i))
		if ok, err := tx.TrySend(msg); !ok || err != nil {
			t.Fatalf("send %d: %v %v", i, ok, err)
		}
		n, ok, err := rx.TryRecv(buf)
		if !ok || err != nil || string(buf[:n]) != string(msg) {
			t.Fatalf("recv %d: %d %v %v", i, n, ok, err)
		}
	}
}

func TestBadRegion(t *testing.T) {
	good := alignedBytes(RegionSize(4)+64, cacheLine)
	if _, err := New(good[:RegionSize(4)], 4); err != nil {
		t.Fatal(err)
	}
	foreign := alignedBytes(RegionSize(4), cacheLine)
	foreign[0] = 'x'
	badVersion := clone(good)
	*word(badVersion, versionOff) = 99
	badSlots := clone(good)
	*word(badSlots, slotCntOff) = 3
	bigSlots := clone(good)
	*word(bigSlots, slotCntOff) = 1024
	for name, region := range map[string][]byte{
		"empty": nil, "short header": good[:100], "foreign": foreign,
		"bad version": badVersion, "bad slot count": badSlots, "too short for slots": bigSlots,
		"misaligned": good[1 : RegionSize(4)+1], "truncated": good[:RegionSize(4)-1],
	} {
		if _, err := Attach(region); !errors.Is(err, ErrBadRegion) {
			t.Errorf("Attach(%s) = %v, want ErrBadRegion", name, err)
		}
	}
	for name, tc := range map[string]struct {
		region []byte
		slots  int
	}{"odd slots": {good, 3}, "one slot": {good, 1}, "negative": {good, -4},
		"short": {good[:RegionSize(4)-1], 4}, "misaligned": {good[4:], 4}, "empty": {nil, 2}} {
		if _, err := New(tc.region, tc.slots); !errors.Is(err, ErrBadRegion) {
			t.Errorf("New(%s) = %v, want ErrBadRegion", name, err)
		}
	}
}

// clone copies a region onto a fresh aligned allocation.
func clone(region []byte) []byte {
	c := alignedBytes(len(region), cacheLine)
	copy(c, region)
	return c
}

func TestCorruptControlWord(t *testing.T) {
	cases := map[string]uint64{
		"too long":           uint64(4*SlotPayload+1)<<lenShift | 1,
		"continuation first": contFlag | 1,
		"future lap":         uint64(1 + 16),
		"garbage":            0xdeadbeefdeadbeef,
	}
	for name, ctl := range cases {
		r := NewHeap(8)
		*r.ctl(0) = ctl
		if msg, st := r.Peek(); st != Other {
			t.Errorf("%s: Peek = %x, %d, want Other (left to TryRecv)", name, msg, st)
		}
		if _, ok, err := r.TryRecv(make([]byte, 512)); ok || !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: TryRecv = %v, %v, want ErrCorrupt", name, ok, err)
		}
	}
	r := NewHeap(8)
	if ok, err := r.TrySend(make([]byte, 2*SlotPayload)); !ok || err != nil {
		t.Fatal(ok, err)
	}
	*r.ctl(1) = 0 // the continuation vanishes
	if _, _, err := r.TryRecv(make([]byte, 512)); !errors.Is(err, ErrCorrupt) {
		t.Errorf("missing continuation: %v, want ErrCorrupt", err)
	}
}

func TestTooLargeAndTruncated(t *testing.T) {
	r := NewHeap(4)
	if ok, err := r.TrySend(make([]byte, r.MaxMessage()+1)); ok || !errors.Is(err, ErrTooLarge) {
		t.Errorf("TrySend(max+1) = %v, %v, want ErrTooLarge", ok, err)
	}
	msg := pattern(r.MaxMessage(), 1)
	if ok, err := r.TrySend(msg); !ok || err != nil {
		t.Fatalf("TrySend(max) = %v, %v", ok, err)
	}
	if ok, err := r.TrySend(nil); !ok || err != nil {
		t.Fatalf("TrySend(empty) = %v, %v", ok, err)
	}
	buf := make([]byte, 10)
	n, ok, err := r.TryRecv(buf)
	if n != len(msg) || !ok || !errors.Is(err, ErrTruncated) || string(buf) != string(msg[:10]) {
		t.Errorf("short buffer: %d %v %v", n, ok, err)
	}
	if n, ok, err := r.TryRecv(nil); n != 0 || !ok || err != nil {
		t.Errorf("empty message: %d %v %v", n, ok, err)
	}
}
