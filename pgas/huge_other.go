//go:build !linux

package pgas

// adviseHuge does nothing where there is no madvise(MADV_HUGEPAGE).
func adviseHuge([]byte) {}
