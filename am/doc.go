// Package am is active messages between the ranks of a comm.World, with
// Grappa's aggregation: many small messages to one rank travel together
// in one comm message, because a network moves a few kilobytes at once
// for little more than it moves a few bytes.
//
// Every rank registers the same handlers by name, then makes an engine:
//
//	var reg am.Registry
//	add, _ := reg.Register("add", func(ctx context.Context, from int, args []byte) ([]byte, error) {
//		... // runs at the destination
//	})
//	e, err := am.New(ctx, w, &reg, am.Config{})
//	if err != nil { ... } // a rank that registered a different table fails here
//	defer e.Close(ctx)
//	err = e.Post(ctx, 1, add, args)        // no reply
//	reply, err := e.Call(ctx, 1, add, args) // waits for the handler's reply
//	r, err := e.CallAsync(ctx, 1, add, args) // returns at once
//	reply, err = r.Wait(ctx)
//
// No code crosses processes: a message names a registered handler by its
// ID and carries bytes, at most Config.MaxArgs of them. Handlers run at the
// destination one at a time per source, in the order that source sent its
// Posts and Calls, on a goroutine of the destination's engine for that
// source; handlers for different sources run at once. A handler's args are
// valid until it returns. A rank runs the messages it sends to itself the
// same way.
//
// Close flushes and stops the engine but does not wait for other ranks:
// messages that reach a closed engine are not handled, so ranks agree that
// they are done (a barrier of comm/collective, or a Call to every rank
// after the last Post) before they close.
//
// # Aggregation
//
// Messages to a rank wait in that rank's buffer, which goes as one packet
// when it holds Config.FlushBytes (4 KiB by default), when its oldest
// message has waited Config.FlushAge (1 ms), when the sender is idle, or
// on Flush. The sender is idle when no message came to any buffer for a
// quarter of FlushAge; when a Call about to block, having yielded its
// processor once (runtime.Gosched), finds that no goroutine added a
// message meanwhile; when every message in a buffer is a Call whose
// caller now blocks on its reply (Grappa flushes when all of a core's
// workers are blocked: nothing more will come from them until the
// buffer goes); and, for replies, when a destination has run every
// handler that arrived. The receiver takes a packet apart into handler
// calls. Calls from many goroutines at once thus share packets and go as
// soon as the last of them blocks, a lone Call goes at once, and a buffer
// holding Posts waits for more: aggregation trades latency for messages
// per second, as Grappa does, only where there are messages to
// aggregate. Stats counts packets,
// messages, bytes and flush causes. FlushBytes 1 sends every message
// alone, which is the direct mode the benchmarks compare with: between two
// ranks, aggregated 32-byte Posts run several times as many per second as
// direct ones (BenchmarkPost32; docs/benchmarks.md, "Active messages with
// aggregation").
//
// # Node-level aggregation
//
// With Config.NodeAggregation, the ranks of one host combine their
// traffic towards each other host, as Grappa's node-level aggregator:
// for each pair of hosts, one rank of each (chosen deterministically,
// spread over the host's ranks) sends and receives all of it, so k ranks
// talking to m remote ranks make one stream over the network instead of
// k×m thin ones. The other ranks hand their messages to it over shared
// memory, and the receiving rank hands them on to their destinations on
// its host. Ranks share a host when comm.World.Transport says "shm".
// Everything above holds as without it: handlers of one source run at a
// destination in the order sent, with the source (not the relay) as
// from; Call replies come back the same way; and a lost relay fails the
// Calls whose messages pass it with comm.ErrPeerLost, as a lost
// destination does. It costs up to two more hops per message and some
// CPU at the relaying ranks, so it is off by default: it pays where
// packets to another host are dear and each rank's own buffers to it fill
// slowly (docs/benchmarks.md, "Node-level aggregation"). Every rank must
// set it alike. Stats.RemotePackets counts the packets to other hosts.
//
// # Errors
//
// A bad handler ID (ErrBadHandler), args longer than Config.MaxArgs
// (ErrTooLarge) or a rank outside the world (comm.ErrBadRank) fail at the
// caller. A handler's error reaches Call's caller as a *RemoteError. When
// a rank is lost, every Call waiting on it, and every Call or Post to it
// once this rank has heard of the loss, fails with an error wrapping
// comm.ErrPeerLost; messages still buffered for it are dropped, and
// nothing waits for it.
// After Close, calls fail with ErrClosed.
package am
