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
// # Protocols, memory and waiting
//
// Blocking calls block their goroutine; a rank waiting for a message
// polls its transport briefly, as MPI libraries spin, and then sleeps, so
// an idle rank burns no CPU. Messages shorter than Config.EagerLimit go
// eagerly: the payload travels with the header and, if no receive is
// posted yet, waits at the receiver in a pooled buffer. Longer ones go by
// rendezvous: the data moves once the matching receive is posted,
// straight into its buffer, so a large unexpected message never sits in
// memory; between ranks on one Linux host the receiver copies it out of
// the sender's memory with one kernel copy from Config.PullLimit on. A
// rank holds at most Config.UnexpectedBudget bytes of unexpected eager
// messages: a sender out of credit sends by rendezvous instead, and
// nothing is dropped or fails. The design is described in
// docs/design/comm.md.
//
// # Serialized worlds
//
// A world may be used by any number of goroutines at once. A program that
// uses its world from one goroutine at a time — as most MPI programs use
// MPI, whose MPI_Init promises one thread — can say so with
// Config.Serialized (MPI's MPI_THREAD_SERIALIZED). When every rank is on
// this host, the world then receives only inside its own calls, in the
// calling goroutine, and takes no locks; Test, Iprobe, Waitall and a
// link's TryRecv poll at least once (as MPI_Test does).
// World.Serialized reports whether it applied. What it costs: nothing
// arrives while the rank computes without calling the world, and queued
// Isends leave at the next call (any call of the world), as with MPI; a
// world used by two goroutines at once breaks, which the race detector
// reports.
//
// # Links
//
// Links (World.Link) are ordered channels between two ranks apart from the
// tagged traffic, for the collectives of comm/collective: their messages
// bypass the matching table, and their signals — zero-payload
// notifications counted per direction, which the barrier uses — cost an
// atomic add between ranks on one host.
//
// # Transports
//
// Join reaches the ranks on this host over shared memory and the others
// over TCP: the ranks register their host with their TCP address in the
// launcher's exchange, which tells each which ranks share its host.
// Config.Transport, or else the environment variable PLEXUS_TRANSPORT,
// forces one: "tcp" (for comparisons and tests), "shm" (every rank must be
// on one host) or "auto", the default. World.Transport(peer) says which
// reaches a peer. A rank of a job on several hosts listens on every
// interface, and a host that vanishes with its connections open is lost
// within about a second and a half (docs/security.md, "A dead peer").
//
// # Hosts that share a machine
//
// Hosts that share one kernel (network namespaces, containers: one boot
// id, World.Machine) share its CPUs. Where their ranks outnumber those
// CPUs (World.Crowded) and nobody bound the rank's process already, Join
// binds it to its host's share of the machine's CPUs, the hosts in order
// of their lowest rank taking equal runs of them, so that each host's
// ranks run apart from the others', as on machines of their own.
// PLEXUS_BIND=none turns this off. Collectives across such hosts then
// run in two levels (comm/collective, Config.Hierarchy).
//
// On any crowded machine, one host or several, Join also lowers the
// rank's GOMAXPROCS to its equal share of the CPUs its process runs on,
// at least one: the share of its host's ranks where Join bound it, of
// the machine's ranks where nobody bound it, so one where the ranks
// outnumber the CPUs evenly. It never raises it; a process bound by
// someone else keeps the runtime's default, and GOMAXPROCS in the
// environment always wins.
//
// Package comm/commtest makes worlds
// for tests: several ranks in one process over an in-memory twin that can
// crash a rank, or over one explicitly configured transport.
package comm
