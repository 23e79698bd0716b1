package main

import (
	"fmt"
	"time"
)

// restartAfter returns the channel that restarts this rank's replica
// with its state lost after d (kv.RanksConfig.Restart), saying so on
// stderr. The process and its place in the job stay: only the
// replica's protocol state and store are lost.
func restartAfter(c *cli, rank int, d time.Duration) <-chan struct{} {
	ch := make(chan struct{}, 1)
	time.AfterFunc(d, func() {
		fmt.Fprintf(c.stderr, "kv serve: replica %d restarts now with its state lost\n", rank)
		ch <- struct{}{}
	})
	return ch
}
