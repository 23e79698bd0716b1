package pgas

import (
	"encoding/binary"
	"sync/atomic"
	"unsafe"
)

// Runs of heap memory that caches copy (gets, puts, local pieces) are
// copied a word at a time with atomic loads and stores wherever 8 or 4
// bytes are aligned, so that a word delegate running beside the copy
// (word.go) never sees a word half written, nor the copy half of one
// (W1). Callers hold h.mu, which keeps the lock path's delegates away.

// loadRun copies len(dst) heap bytes at off into dst.
func (h *Heap) loadRun(dst []byte, off int64) {
	if !wordsOK {
		copy(dst, h.mem[off:])
		return
	}
	for i := 0; i < len(dst); {
		o, left := off+int64(i), len(dst)-i
		switch {
		case o%8 == 0 && left >= 8:
			binary.LittleEndian.PutUint64(dst[i:], atomic.LoadUint64(h.w64(o)))
			i += 8
		case o%4 == 0 && left >= 4:
			binary.LittleEndian.PutUint32(dst[i:], atomic.LoadUint32(h.w32(o)))
			i += 4
		default:
			dst[i] = h.mem[o]
			i++
		}
	}
}

// storeRun copies src into the heap at off.
func (h *Heap) storeRun(off int64, src []byte) {
	if !wordsOK {
		copy(h.mem[off:], src)
		return
	}
	for i := 0; i < len(src); {
		o, left := off+int64(i), len(src)-i
		switch {
		case o%8 == 0 && left >= 8:
			atomic.StoreUint64(h.w64(o), binary.LittleEndian.Uint64(src[i:]))
			i += 8
		case o%4 == 0 && left >= 4:
			atomic.StoreUint32(h.w32(o), binary.LittleEndian.Uint32(src[i:]))
			i += 4
		default:
			h.mem[o] = src[i]
			i++
		}
	}
}

// bytesOf views s as the bytes that hold it in memory.
func bytesOf[T Number](s []T) []byte {
	if len(s) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(s[0])))
}
