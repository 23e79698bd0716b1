package kvbench

import "errors"

// ErrUndecided: a client's request was still undecided long after the
// run ended, although the client proposed it again every attemptFor.
var ErrUndecided = errors.New("kvbench: request undecided")
