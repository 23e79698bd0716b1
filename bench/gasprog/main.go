// Gasprog is package gasrank as a program of its own, the Plexus side of
// "plexus bench gas" built from source (GasConfig.Rank empty). Start it
// as a job:
//
//	plexus run -n 2 -- gasprog -bench am -mode direct -n 100000
//
// See package gasrank for its options; "plexus bench gas rank" is the
// same program inside the plexus binary.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/plexus-hpc/plexus/bench/gasrank"
)

func main() {
	err := gasrank.Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "gasprog:", err)
		os.Exit(1)
	}
}
