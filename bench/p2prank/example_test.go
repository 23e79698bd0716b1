package p2prank_test

import (
	"context"
	"fmt"
	"io"

	"github.com/plexus-hpc/plexus/bench/p2prank"
)

// Run checks its options before it joins a job, so a mistake is reported
// at once, on every rank, rather than as a job that hangs.
func ExampleRun() {
	err := p2prank.Run(context.Background(), []string{"-bench", "pingpong"}, io.Discard, io.Discard)
	fmt.Println(err)
	// Output: p2prank: bad options: -bench "pingpong": want latency, bw, msgrate, coll, latency_mt or msgrate_mt
}
