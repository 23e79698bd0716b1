//go:build !linux

package comm

import "runtime"

// osYield lets other goroutines run; elsewhere than Linux there is no
// portable way to yield the thread.
var osYield = runtime.Gosched
