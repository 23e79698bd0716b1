package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
)

// The rank programs of plexus bench p2p and bench gas are in this binary,
// so that a host needs nothing else to run the benchmarks (no Go toolchain,
// no source tree): each Plexus rank of a benchmark job is this program
// started as "plexus bench p2p rank FLAGS" or "plexus bench gas rank
// FLAGS". The verb is read before the command's own flags, which take no
// positional arguments, so it cannot be mistaken for anything a user
// types; it is not in plexus help's list, being what the benchmark starts
// rather than a command of its own, and each bench command's usage names it.
const rankVerb = "rank"

// rankProg is one rank of a benchmark job (p2prank.Run or gasrank.Run).
type rankProg func(ctx context.Context, args []string, stdout, stderr io.Writer) error

// rankArgs returns the rank program's flags when args start with the rank
// verb.
func rankArgs(args []string) ([]string, bool) {
	if len(args) > 0 && args[0] == rankVerb {
		return args[1:], true
	}
	return nil, false
}

// runRank runs prog as one rank, ending with the context's error on an
// interrupt as the other commands do.
func runRank(c *cli, prog rankProg, args []string) error {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return prog(ctx, args, c.stdout, c.stderr)
}

// selfRank returns the command line that runs one rank of bench (p2p or
// gas) from this binary. Tests replace it: their binary is the test
// program, which runs tests, not plexus.
var selfRank = func(bench string) ([]string, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("finding this program to run its ranks: %w", err)
	}
	return []string{exe, "bench", bench, rankVerb}, nil
}
