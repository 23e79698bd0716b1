package ring

import "encoding/binary"

// copySmall copies src, at most SlotPayload bytes, into dst, which must be
// at least as long. It moves whole 8-byte words (the last one overlapping
// the one before when len(src) is not a multiple of 8) because runtime
// memmove, a call, costs about as much as the rest of a one-slot send.
// binary.LittleEndian compiles to single unaligned loads and stores where
// the CPU allows them and stays correct where it does not.
func copySmall(dst, src []byte) {
	n := len(src)
	if n < 8 {
		for i := range n {
			dst[i] = src[i]
		}
		return
	}
	dst = dst[:n]
	for i := 0; i+8 <= n; i += 8 {
		binary.LittleEndian.PutUint64(dst[i:], binary.LittleEndian.Uint64(src[i:]))
	}
	if n%8 != 0 {
		binary.LittleEndian.PutUint64(dst[n-8:], binary.LittleEndian.Uint64(src[n-8:]))
	}
}
