package gasrank_test

import (
	"context"
	"fmt"
	"io"

	"github.com/plexus-hpc/plexus/bench/gasrank"
)

// Run checks its options before it joins a job, so a mistake is reported
// at once, on every rank, rather than as a job that hangs.
func ExampleRun() {
	err := gasrank.Run(context.Background(), []string{"-bench", "am", "-mode", "eager"}, io.Discard, io.Discard)
	fmt.Println(err)
	// Output: gasrank: bad options: -mode "eager": want aggregated or direct
}
