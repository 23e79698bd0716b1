//go:build !linux

package main

import (
	"fmt"
	"os"
)

// railsRank is a rank of TestRunWithRails, which runs only on Linux
// (network namespaces): elsewhere it says so and fails.
func railsRank() int {
	fmt.Fprintln(os.Stderr, "rails rank: needs Linux")
	return 2
}
