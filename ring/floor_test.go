package ring

import (
	"sync/atomic"
	"unsafe"
)

// floorPPs returns bare ping-pongs on the ring's own region layout (two
// heap rings of benchSlots slots, one each way), each adding one
// ingredient of a ring message to the one before, so that, next to the
// ring's, the gaps say where a round trip's time goes:
//
//	line        a control word per direction, always slot 0: two lines, one writer each
//	lines       the control word moves to the next slot every message, as a ring's does
//	slots       plus an 8-byte payload word stored before the control word
//	slots+warm  plus the store into the next slot's last payload word that Ring.warm makes
//
// What a Ring adds to slots+warm is its bookkeeping: lengths, flow
// control, the copy, the calls and the Backoff.
func floorPPs() (names []string, pps []*pingPonger) {
	for _, c := range []struct {
		name string
		f    floor
	}{
		{"line", floor{}}, {"lines", floor{mask: benchSlots - 1}},
		{"slots", floor{mask: benchSlots - 1, payload: true}},
		{"slots+warm", floor{mask: benchSlots - 1, payload: true, warm: true}},
	} {
		ab, ba, f := NewHeap(benchSlots), NewHeap(benchSlots), c.f
		var next counters
		pps = append(pps, &pingPonger{func(n int) {
			h := next.ping
			for range n {
				f.send(ab, h)
				f.recv(ba, h)
				h++
			}
			next.ping = h
		}, func(n int) {
			h := next.pong
			for range n {
				f.recv(ab, h)
				f.send(ba, h)
				h++
			}
			next.pong = h
		}})
		names = append(names, c.name)
	}
	return names, pps
}

// floor is one bare ping-pong variant of BenchmarkPingPongFloor.
type floor struct {
	mask          uint64
	payload, warm bool
}

func (f floor) slot(r *Ring, h uint64) unsafe.Pointer {
	return unsafe.Add(r.slots, (h&f.mask)*SlotSize)
}

// send publishes message h on r: the payload word, then the control word.
func (f floor) send(r *Ring, h uint64) {
	s := f.slot(r, h)
	if f.payload {
		*(*uint64)(unsafe.Add(s, ctlSize)) = h
	}
	atomic.StoreUint64((*uint64)(s), h+1)
	if f.warm {
		*(*uint64)(unsafe.Add(f.slot(r, h+1), SlotSize-8)) = 0
	}
}

// recv spins until message h is on r and reads its payload word.
func (f floor) recv(r *Ring, h uint64) {
	s := f.slot(r, h)
	for atomic.LoadUint64((*uint64)(s)) != h+1 {
	}
	if f.payload && *(*uint64)(unsafe.Add(s, ctlSize)) != h {
		panic("ring: floor benchmark read a wrong payload")
	}
}
