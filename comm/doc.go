// Package comm is MPI-style tagged point-to-point messaging between ranks
// (processes, possibly on different hosts), built so that hundreds of
// thousands of goroutines in each rank can send and receive at once, as in
// MPIV ("Toward million communicating threads", EuroMPI'16).
//
// A program joins its job and talks to the other ranks by rank and tag:
//
//	w, err := comm.Join(ctx) // rank and size from plexus run, mpirun, srun or torchrun
//	if err != nil { ... }
//	defer w.Close()
//	if w.Rank() == 0 {
//		err = w.Send(ctx, 1, tag, data)
//	} else {
//		st, err := w.Recv(ctx, comm.AnySource, comm.AnyTag, buf)
//		// st.Source, st.Tag, st.Len
//	}
//
// Isend and Irecv return a *Request to Wait on or Test; Waitall waits for
// several, WaitallInto without allocating (statuses into the caller's
// slice, or dropped); Free hands finished requests back for reuse, so a
// loop of windows allocates nothing. An eager Isend is complete when it
// returns, and its request may be shared with other such sends of the same
// peer, tag and length: requests are not identities. Probe and Iprobe look
// at a message without receiving it.
// Messages between two ranks with the same tag are received in the order
// they were sent (MPI's non-overtaking rule). Every wait takes a context;
// a receive buffer too short gives ErrTruncated; a rank that dies gives
// ErrPeerLost to every operation waiting on it, even if the two ranks
// never exchanged a message (an AnySource receive or probe waits on every
// other rank, and fails so once all of them are lost); a closed world
// gives ErrClosed.
//
// # How it works
//
// Blocking calls simply block their goroutine: goroutines are cheap and
// the Go scheduler is the user-level thread scheduler MPIV had to write.
// Each waiting operation is a small pooled request (MPIV's ThreadWait and
// ThreadSignal): its completion is one compare-and-swap and a store (one
// swap for a receive taken from the matching table, which nobody else can
// finish), and a channel token only for an owner that announced it sleeps
// (complete.go).
// Over a transport that can be polled (TCP, shared memory), one waiting
// goroutine per world first reads the transport itself for up to 100 µs
// (spinFor), as MPI libraries spin, since waking a sleeping goroutine
// costs tens of microseconds on a small machine; after that it sleeps, so
// an idle rank burns no CPU. While no other goroutine sleeps waiting, its
// poll returns as soon as its own message is in (UntilPoller), and
// Waitall waits for the last request first, so that one poll takes in
// the whole window. Eager Isends are queued with the transport (Queuer),
// which may send a window of them together. A sleeping goroutine waits on its request's
// channel alone, with its request listed under its context in the world
// (watch.go), so that a million of them keep the smallest stacks; while
// more than 1024 sleep, nobody polls (the transport's receive goroutine
// delivers), since a poller's deep delivery path grows its stack. That
// poller also does the work arriving
// frames call for that may wait on the network — granting a matched
// rendezvous, pushing its data after the grant — which the delivery path
// queues rather than starting a goroutine, a thread wake-up on a small
// machine; with no poller, a goroutine drains the queue (deferred.go).
// An eager message that finds its receive already posted is copied
// straight from the transport into it. Arriving messages and posted
// receives meet in a sharded matching table (package comm/match): MPIV's
// Algorithms 1 and 2, with FIFOs per key for MPI order and a slower but
// correct path for wildcards.
//
// Messages shorter than Config.EagerLimit go eagerly: the payload travels
// with the header and waits, if no receive is posted, in a buffer from a
// size-classed pool. Longer ones use a rendezvous: the sender announces
// the message (RTS), the matching receive grants it (CTS) and the data
// flows straight from the sender's buffer into the receiver's in chunks,
// so a large unexpected message never sits in memory. When the transport
// lets the peer read this rank's memory (a Puller: shared memory with
// Linux cross-memory attach), the RTS offers the buffer's address
// instead, the matching receive pulls the data into its own buffer with
// one kernel copy and answers with a FIN, and the send completes; a
// sender that gives up meanwhile revokes the offer and waits for the
// answer, so its buffer is never reused while it is read (pull.go). To
// such a peer rendezvous may start at Config.PullLimit, below EagerLimit,
// where one copy by the kernel beats two through shared memory's bulk
// buffers; both are 64 KiB by default, since shared memory carries eager
// payloads up to 64 KiB in its bulk buffers. A rank holds at most
// Config.UnexpectedBudget bytes of unexpected eager messages, each charged
// what it costs stored: each sender has an equal share as credit, spends
// it on eager sends, gets it back as its messages are received, and uses
// the rendezvous protocol while it has none. Announcements are charged
// too, but always sent, so that a posted receive finds its message; past
// the budget a rank holds only announcements, one per rendezvous send in
// flight to it (credit.go).
//
// # Serialized worlds
//
// A world may be used by any number of goroutines at once, and its
// transport's receive goroutine delivers beside them, so matching and
// request reuse take locks. A program that uses its world from one
// goroutine at a time — as most MPI programs use MPI, whose MPI_Init
// promises one thread — can say so with Config.Serialized (MPI's
// MPI_THREAD_SERIALIZED). When every rank is on this host, the world then
// runs over a passive shared-memory endpoint that receives only inside
// the world's calls, in the calling goroutine: waits poll the rings and
// then sleep on the endpoint's futex rather than on a channel, Test,
// Iprobe, Waitall and a link's TryRecv poll at least once (as MPI_Test
// does), deferred work
// runs at the next poll or send, collectives keep polling between naps, and
// the matching table, the free requests, the one-poller flag and the
// rings drop their locks (serial.go). World.Serialized reports whether it
// applied. What it costs: nothing arrives while the rank computes without
// calling the world, and queued Isends leave at the next call (any call
// of the world), as with MPI; a world used by two goroutines at once
// breaks, which the race detector reports.
//
// # Links
//
// Links (World.Link) are ordered channels between two ranks apart from the
// tagged traffic, for the collectives of comm/collective: messages bypass
// the matching table, and signals — zero-payload notifications counted per
// direction, which the barrier uses — are, between ranks on one host, an
// atomic add on a counter in the shared-memory segment that the waiting
// rank polls (see linksignal.go).
//
// # Transports
//
// Join reaches the ranks on this host over shared memory and the others
// over TCP: the ranks register their host with their TCP address in the
// launcher's exchange, which tells each which ranks share its host.
// Config.Transport, or else the environment variable PLEXUS_TRANSPORT,
// forces one: "tcp" (for comparisons and tests), "shm" (every rank must be
// on one host) or "auto", the default. Package comm/commtest makes worlds
// for tests: several ranks in one process over an in-memory twin that can
// crash a rank, or over one explicitly configured transport.
package comm
