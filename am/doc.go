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
//
// No code crosses processes: a message names a registered handler by its
// ID and carries bytes. Handlers run at the destination one at a time per
// source, in the order that source posted them, on a goroutine of the
// destination's engine for that source.
//
// # Aggregation
//
// Messages to a rank wait in that rank's buffer, which goes as one packet
// when it holds Config.FlushBytes (4 KiB by default), when its oldest
// message has waited Config.FlushAge (1 ms), when the sender is idle (no
// message came to any buffer for a quarter of FlushAge, or a destination
// has run every handler that arrived and has replies waiting), or on
// Flush. The receiver takes a packet apart into handler calls. A Call
// therefore waits at least until its buffer goes: aggregation trades
// latency for messages per second, as Grappa does. Stats counts packets,
// messages, bytes and flush causes. FlushBytes 1 sends every message
// alone, which is the direct mode the benchmarks compare with.
//
// Ranks on one host do not combine their traffic towards a remote host
// (Grappa's node-level aggregator): each rank aggregates on its own.
//
// # Errors
//
// A bad handler ID (ErrBadHandler), args longer than Config.MaxArgs
// (ErrTooLarge) or a rank outside the world (comm.ErrBadRank) fail at the
// caller. A handler's error reaches Call's caller as a *RemoteError. When
// a rank is lost, every Call waiting on it and every later Call or Post to
// it fails with an error wrapping comm.ErrPeerLost; nothing waits for it.
// After Close, calls fail with ErrClosed.
package am
