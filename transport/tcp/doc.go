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
//	ep, err := tcp.Listen(tcp.Config{
//		Rank: rank, Size: size, JobID: job, Secret: secret,
//		Listen:  "10.0.0.5:0",
//		Addrs:   book.Lookup, // from the launcher: rank → "host:port"
//		Deliver: func(peer int, h tcp.Header, payload []byte) { ... },
//		Lost:    func(peer int, err error) { ... },
//		Heartbeat: 250 * time.Millisecond,
//	})
//	if err != nil { ... }
//	defer ep.Close()
//	publish(ep.Addr())
//	err = ep.Send(ctx, peer, tcp.Header{Kind: tcp.Eager, Comm: 0, Tag: 7, Seq: seq}, msg)
//
// # Concurrency contract
//
// Send, Queue, Poll, PollDone, Addr, Stats and Close are safe for any
// number of goroutines at once. A Send to an idle connection writes the
// frame from the calling goroutine (write.go); otherwise, and always for
// Queue, the frame is copied to the connection's queue, and one writer
// goroutine per connection drains everything queued into one buffered
// writer, so small frames from many goroutines leave in one system call.
// Frames that one goroutine sends to one peer arrive in the order it sent
// them. A full queue (Config.QueueBytes) makes Send wait, until ctx ends
// or the connection or Endpoint closes.
//
// One reader goroutine per connection decodes frames and calls
// Config.Deliver for each, in order; the payload is valid only during the
// call, and Deliver should hand work off rather than block. A goroutine
// waiting for a frame may instead Poll: it then reads and delivers what
// has arrived itself, and the reader goroutine stands aside while it does
// (poll.go); Poll also first writes what is queued for that peer, if
// nobody else is writing, rather than leave it to the writer goroutine
// (flush.go). Either way Deliver runs for one frame of a peer at a time.
//
// On Linux a connection leaves Go's netpoller once its handshake is over
// (sock_linux.go): it keeps a duplicate of the socket's descriptor and
// closes the net.Conn. Otherwise every arriving segment would wake an
// idle thread of the process, sleeping in the netpoller because the
// Endpoint's Accept is parked there, to compete with the goroutine that
// polls the socket for that very segment. A detached connection is
// polled with non-blocking reads as before; its reader goroutine, when
// nobody polls, registers a duplicate of the descriptor with the
// netpoller for as long as it waits, and a writer waiting for socket
// space blocks its thread in poll(2). At most 64 connections per Endpoint
// are detached; the others, and every connection on other systems, stay
// in the netpoller.
//
// A peer whose connection ends — a Bye, a reset or EOF, a malformed frame, or silence
// beyond Config.PeerTimeout when heartbeats are on — is reported once to
// Config.Lost, after its last Deliver, and stays lost: later Sends to it
// fail with ErrPeerLost. A peer with no connection yet is watched only
// once Reach is called for it: Reach dials it, and a peer that cannot be
// reached (its port refuses: its process is gone) is reported lost the
// same way (reach.go). Close sends Bye to every peer, fails waiting
// Sends with ErrClosed and returns after the last callback has returned;
// it must not be called from Deliver or Lost.
//
// Only one connection per pair of ranks survives: either rank may dial,
// and when both dial at once the connection dialled by the lower rank is
// kept (see peer.go).
package tcp
