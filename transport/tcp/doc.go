// Package tcp is Plexus's transport between hosts: framed, authenticated
// TCP connections between the ranks of a job, one per pair of ranks,
// carrying the comm layer's eager, rendezvous and credit frames.
//
// Each rank opens an Endpoint. It listens at once and connects to a peer
// the first time it sends to it (or when the peer connects first). Every
// connection starts with a mutual HMAC-SHA256 challenge-response on the
// job's secret, so only ranks of the same job that hold the secret get a
// connection; strangers are refused with no word about the job, logged
// through Config.Logger (a few lines a second, the rest counted), and never
// disturb the connections already up. A flood of them cannot lock the
// ranks out: handshakes in progress are bounded in all and per source
// address, the oldest giving way to the newest, and a dial the acceptor
// sheds is tried again. An Endpoint that must listen before it knows the
// secret takes it later through Config.Key. docs/wire-format.md describes
// the frames and the handshake byte by byte.
//
// A frame is a frame.Header and a payload (package transport/frame); an
// Endpoint sends and delivers the comm layer's kinds, frame.Eager to
// frame.Credit, and keeps the handshake and heartbeat frames to itself.
//
//	ep, err := tcp.Listen(tcp.Config{
//		Rank: rank, Size: size, JobID: job, Secret: secret,
//		Listen:  "10.0.0.5:0",
//		Addrs:   book.Lookup, // from the launcher: rank → "host:port"
//		Deliver: func(peer int, h frame.Header, payload []byte) { ... },
//		Lost:    func(peer int, err error) { ... },
//		Heartbeat: 250 * time.Millisecond,
//	})
//	if err != nil { ... }
//	defer ep.Close()
//	publish(ep.Addr())
//	err = ep.Send(ctx, peer, frame.Header{Kind: frame.Eager, Comm: 0, Tag: 7, Seq: seq}, msg)
//
// # Concurrency contract
//
// Send, Queue, Poll, PollDone, Addr, Stats and Close are safe for any
// number of goroutines at once. Frames that one goroutine sends to one
// peer arrive in the order it sent them. Send writes the frame from the
// calling goroutine when the connection is idle and otherwise copies it
// to the connection's queue, so the caller may reuse its buffer when Send
// returns; Queue always copies it, and small frames from many goroutines
// leave together in one system call. A full queue (Config.QueueBytes)
// makes Send wait, until ctx ends or the connection or Endpoint closes.
//
// One reader goroutine per connection decodes frames and calls
// Config.Deliver for each, in order; the payload is valid only during the
// call, and Deliver should hand work off rather than block. A goroutine
// waiting for a frame may instead Poll: it then reads and delivers what
// has arrived itself, which saves a hand-off, and first writes what is
// queued for that peer (Endpoint.Poll). Either way Deliver runs for one
// frame of a peer at a time.
//
// On Linux up to 64 connections per Endpoint leave Go's netpoller once
// their handshake is over, so that an arriving segment wakes no idle
// thread to compete with the goroutine polling for it; a writer waiting
// for socket space then blocks its thread. This changes latency, not
// behaviour. docs/design/tcp.md describes connections, writing, polling
// and the netpoller.
//
// A peer whose connection ends — a Bye, a reset or EOF, a malformed frame, or silence
// beyond Config.PeerTimeout when heartbeats are on — is reported once to
// Config.Lost, after its last Deliver, and stays lost: later Sends to it
// fail with ErrPeerLost. A peer with no connection yet is watched only
// once Reach is called for it: Reach dials it, and a peer that cannot be
// reached (its port refuses: its process is gone) is reported lost the
// same way (Endpoint.Reach). Close sends Bye to every peer, fails waiting
// Sends with ErrClosed and returns after the last callback has returned;
// it must not be called from Deliver or Lost.
//
// Only one connection per pair of ranks survives: either rank may dial,
// and when both dial at once the connection dialled by the lower rank is
// kept.
//
// # Rails
//
// With Config.Rails an Endpoint also has rails: extra connections to a
// peer on another host, each from one of its rail addresses to the
// peer's rail in the same network (package rail's multirail strategy,
// carried by package transport/multirail). It listens on each rail
// address too, and its address book entry is JoinAddr(Addr(),
// RailAddrs()). The first Data frame of at least Config.RailMin bytes to
// a peer dials this rank's rails to it, each authenticated by the same
// handshake as the main connection; from then on such frames are split
// across the rails so that the chunks finish together (profiles from
// Config.RailProfiles, else from a brief sampling of each rail at setup,
// which is then added to that file when it names one),
// one goroutine writing each rail, and put back together at the peer.
// Every other frame keeps the main connection. A long Data frame's Send
// or Queue returns once the frame is queued on the rails (waiting only
// while the rails' window is full), so that the frames behind it keep
// every rail busy; Close waits for the rails' acknowledgements, up to a
// second, before its Bye. Data frames over rails are not ordered with the
// frames around them (comm's name their transfer and offset). A rail that fails mid-transfer is replaced by the
// others and reported (logged at Warn, counted in RailStats); when every
// rail to a peer has failed, the peer is lost, since the frame in flight
// cannot be resent without the risk of arriving twice. Deliver stays
// serial per peer across the main connection and the rails, and what a
// peer's rails brought is delivered before its Lost. Without Rails
// nothing of this exists. docs/design/rails.md has the design.
package tcp
