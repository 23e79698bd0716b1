package measure

import "github.com/plexus-hpc/plexus/ring"

// endpoint is one end of the queue pair a measurement runs on: the
// concrete type, so the timed calls are direct calls.
type endpoint = *ring.Pair

// newPairs makes the fresh queue pair of one measurement.
var newPairs = ring.NewPairs
