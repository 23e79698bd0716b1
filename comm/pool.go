package comm

import (
	"math/bits"
	"sync"
)

// Buffers for eager payloads come from size-classed pools: class c holds
// slices of capacity minPooled<<c. Rounding up to a power of two wastes
// at most half a buffer but lets any buffer serve any message of its
// class, so a mix of sizes does not fragment the pools.
const (
	minPooledShift = 6
	minPooled      = 1 << minPooledShift
	maxPooledShift = 24
	maxPooled      = 1 << maxPooledShift
	numClasses     = maxPooledShift - minPooledShift + 1
)

// pools holds *[]byte so that Put does not allocate a slice header.
var pools [numClasses]sync.Pool

// class returns the pool class for a buffer of n bytes (n <= maxPooled).
func class(n int) int {
	if n <= minPooled {
		return 0
	}
	return bits.Len(uint(n-1)) - minPooledShift
}

// getBuf returns a buffer of length n. Buffers beyond maxPooled are
// allocated and later dropped.
func getBuf(n int) *[]byte {
	if n > maxPooled {
		b := make([]byte, n)
		return &b
	}
	c := class(n)
	if p, ok := pools[c].Get().(*[]byte); ok {
		*p = (*p)[:n]
		return p
	}
	b := make([]byte, n, minPooled<<c)
	return &b
}

// putBuf returns b to its pool. The caller must not use b afterwards.
func putBuf(b *[]byte) {
	c := cap(*b)
	if c > maxPooled || c < minPooled || c&(c-1) != 0 {
		return
	}
	pools[class(c)].Put(b)
}
