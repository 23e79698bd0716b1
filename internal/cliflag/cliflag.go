// Package cliflag parses the flags of the rank programs (bench/gasrank,
// bench/p2prank) the one way they all want: usage errors wrap the
// caller's sentinel, -h stays flag.ErrHelp, and no positional argument
// is taken.
//
// Usage:
//
//	fs := flag.NewFlagSet("p2prank", flag.ContinueOnError)
//	fs.IntVar(&o.n, "n", 0, "iterations")
//	if err := cliflag.Parse(fs, args, ErrUsage); err != nil {
//		return o, err
//	}
package cliflag

import (
	"errors"
	"flag"
	"fmt"
)

// Parse parses args into fs, which takes no positional arguments. It
// returns flag.ErrHelp as it is, and any other error, or a positional
// argument, wrapping usage.
func Parse(fs *flag.FlagSet, args []string, usage error) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return fmt.Errorf("%w: %v", usage, err)
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", usage, fs.Arg(0))
	}
	return nil
}
