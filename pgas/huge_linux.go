package pgas

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugePage is the size of the transparent huge pages adviseHuge asks for.
const hugePage = 2 << 20

// adviseHuge asks the kernel for transparent huge pages under the whole
// 2 MiB pages of b (madvise MADV_HUGEPAGE), where the system leaves that
// to each program (transparent_hugepage "madvise"): delegates touch a
// heap at random, and with 4 KiB pages nearly every touch of a large one
// also misses the TLB, as Grappa's global heap avoids with huge pages.
// It is advice: failures are ignored, and the memory works either way.
func adviseHuge(b []byte) {
	if len(b) < 2*hugePage {
		return
	}
	p := uintptr(unsafe.Pointer(&b[0]))
	start := (p + hugePage - 1) &^ (hugePage - 1)
	end := (p + uintptr(len(b))) &^ (hugePage - 1)
	if end > start {
		unix.Madvise(b[start-p:end-p], unix.MADV_HUGEPAGE) //nolint:errcheck // advice only
	}
}
