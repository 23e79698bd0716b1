//go:build !linux

package wait

import "runtime"

// OSYield lets other goroutines run; elsewhere than Linux there is no
// raw sched_yield to call.
func OSYield() { runtime.Gosched() }
