//go:build !linux

package coll

import (
	"sync/atomic"
	"time"
)

// haveFutex: without futex(2), every door sleeps on its channel.
const haveFutex = false

func futexWait(addr *atomic.Uint32, val uint32, d time.Duration) {
	panic("coll: futexWait without futex(2)")
}

func futexWake(addr *atomic.Uint32) {
	panic("coll: futexWake without futex(2)")
}
