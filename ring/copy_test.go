package ring

import "testing"

func TestCopySmall(t *testing.T) {
	src := pattern(SlotPayload, 3)
	for n := 0; n <= SlotPayload; n++ {
		dst := make([]byte, SlotPayload+1)
		for i := range dst {
			dst[i] = 0xee
		}
		copySmall(dst, src[:n])
		if string(dst[:n]) != string(src[:n]) || dst[n] != 0xee {
			t.Fatalf("copySmall of %d bytes: got %x", n, dst)
		}
	}
}
