// Package multirail carries messages between two hosts over several
// network links at once ("rails"), with package rail's strategy: each
// message is split so that its chunks, one per rail, finish together,
// counting what each rail still has to send; small messages go whole on
// the rail that delivers them first, and queue together there.
//
//	// one connection per rail, each to the same peer, authenticated:
//	for _, c := range conns {
//		if err := multirail.Handshake(c, secret, dialer, 5*time.Second); err != nil { ... }
//	}
//	// profiles from multirail.Sample over each (the peer runs Echo),
//	// or from a cached rail.File
//	l, err := multirail.New(conns, profiles, multirail.Config{})
//	if err != nil { ... }
//	defer l.Close()
//	err = l.Send(ctx, msg)       // returns once the peer has every byte
//	                             // (a small message: once it is written)
//	msg, err = l.Recv(ctx)       // the peer's next message, in order
//	l.Release(msg)               // optional, once done with msg: a later
//	                             // message may be received into its array
//
// # Guarantees
//
// Messages arrive complete, in order, each exactly once, with every chunk
// checked against its CRC-32C. A chunk that is refused (corrupt,
// malformed) takes its rail down at the receiver; a rail whose writes or
// reads fail, or whose chunks go unacknowledged for Config.AckTimeout
// beyond twice their predicted time, is taken down at the sender. Either
// way its unacknowledged chunks go again on the other rails, the copies
// that had arrived are dropped, Config.RailDown hears of it and Stats
// counts it: the transfer completes on the rails left. When none is left,
// Send and Recv fail with ErrRailsDown.
//
// Each rail has its own writer goroutine, so the chunks of one message
// are written in parallel (the paper's multicore offload), and its own
// reader. A message longer than Config.Slice is posted a slice at a
// time, each split when it is posted, so that a long message follows
// rails that slow down or speed up under it. A small message
// (Config.Eager) goes whole from its sender's goroutine when its rail's
// writer is idle, Send does not wait for its acknowledgement, and with
// Config.Poll a Recv reads the rails itself before it sleeps: no
// goroutine hand-off on either side. On Linux a rail's socket is taken
// out of Go's netpoller (New closes the net.Conn and keeps a duplicate of
// its descriptor), so that a packet that a polling Recv reads wakes no
// other thread. Config.Window bounds the bytes in flight each way.
//
// The chunk header is in docs/wire-format.md; the design, with what was
// measured on shaped rails between namespace hosts, in docs/design/rails.md.
package multirail
