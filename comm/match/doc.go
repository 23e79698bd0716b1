// Package match is the matching engine of Plexus's tagged point-to-point
// messaging (MPIV): the table where arriving messages meet the receives
// goroutines post, with MPI's matching rules, for hundreds of thousands
// of goroutines per rank. It does no I/O and knows nothing of buffers or
// waiting: a message (M) and a receive (R) are whatever the caller stores.
//
// Both sides insert-or-take, as in MPIV's Algorithms 1 and 2. The
// transport calls Arrive for each incoming message: if a posted receive
// matches, Arrive hands it back and the caller delivers the message into
// it and wakes its owner; otherwise the message waits as unexpected. A
// goroutine calls Post to receive: if an unexpected message matches, Post
// hands it back; otherwise the receive waits as posted.
//
//	type recv struct{ done chan []byte }
//	t := match.New[[]byte, *recv](match.Config{})
//
//	// transport goroutine, for each message from the network:
//	if r, ok, err := t.Arrive(match.Key{Comm: c, Source: src, Tag: tag}, payload); err != nil {
//		// a corrupt header: drop the peer
//	} else if ok {
//		r.done <- payload
//	}
//
//	// a receiving goroutine:
//	r := &recv{done: make(chan []byte, 1)}
//	if m, ok, _ := t.Post(match.Key{Comm: c, Source: match.AnySource, Tag: 7}, r); ok {
//		use(m)
//	} else {
//		use(<-r.done) // or, on timeout, t.Cancel(key, func(x *recv) bool { return x == r })
//	}
//
// # Rules
//
// Matching follows MPI: messages with equal keys match in arrival order
// and receives with equal keys in posting order; a wildcard receive
// (AnySource, AnyTag) takes the earliest arrived message it accepts, and a
// message goes to the earliest posted receive that accepts it, exact or
// wildcard. Probe, Cancel and RemoveSource (for a lost peer) complete the
// set. Take is Arrive for a caller that can deliver straight into a
// receive and stores the message itself only if none matched; TakeN takes
// the receives a run of messages with one key would match, under one lock.
// Ref is a one-mutex twin with the same rules, kept for tests.
//
// # Performance
//
// The table is sharded by a hash of the key, one small mutex per shard
// padded to its own cache lines (MPIV uses a spinlock per bucket), and
// each shard keeps its keys in an open-addressing table of per-key FIFOs
// with recycled nodes, so the exact path hashes once, takes one lock and
// allocates nothing. Keys that empty are removed and the tables shrink,
// so a million goroutines each on its own tag cost memory only while they
// wait. Wildcard receives cost more: posting one scans every shard's
// count of unexpected messages and locks the shards that hold some (all
// of them when those are many), and while any is posted, or a wildcard
// Post or Probe runs, each arrival also takes one extra lock. Once a
// table has seen a wildcard, each message stored as unexpected costs two
// locked instructions more. So a wildcard's cost grows with
// Config.Shards while exact receives of many goroutines at once meet
// less the more shards there are. See BenchmarkTable, BenchmarkWildPost
// and BenchmarkWildPostBusy.
package match
