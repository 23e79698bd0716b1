// P2pprog is package p2prank as a program of its own, the Plexus side of
// "plexus bench p2p" built from source (P2PConfig.Rank empty, or
// --no-pgo). Start it as a job of at least two ranks:
//
//	plexus run -n 2 -- p2pprog -bench latency -s 1,8,1024 -n 1000
//
// See package p2prank for its options; "plexus bench p2p rank" is the
// same program inside the plexus binary.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"

	"github.com/plexus-hpc/plexus/bench/p2prank"
)

func main() {
	err := p2prank.Run(context.Background(), os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "p2pprog:", err)
		os.Exit(1)
	}
}
