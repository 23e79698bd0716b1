//go:build !linux

package wait

import (
	"sync/atomic"
	"time"
)

// HaveFutex is false without futex(2): callers sleep some other way.
const HaveFutex = false

// FutexWait must not be called where HaveFutex is false.
func FutexWait(addr *atomic.Uint32, val uint32, d time.Duration) {
	panic("wait: FutexWait without futex(2)")
}

// FutexWake must not be called where HaveFutex is false.
func FutexWake(addr *atomic.Uint32) {
	panic("wait: FutexWake without futex(2)")
}
