// Package shm is Plexus's transport between ranks on one host: the rings
// of package ring, placed in a memory-mapped file that every rank of the
// job maps, carrying the comm layer's frames without a system call.
//
// Each rank opens an Endpoint on the job's segment,
// Dir/plexus-<job>-<uid>: the first creates it (O_EXCL, mode 0600), the
// others map it once its header is complete and refuse it with
// ErrBadSegment if it is not private to the user (a regular file, not a
// symbolic link, owned by the user, mode 0600: the name is guessable, and
// another user may have made it first), is corrupted, or belongs to
// another job or geometry.
// The segment holds a header, a line per rank (pid, heartbeat, state, the
// futex word it sleeps on and its canary), a ring per ordered pair of
// ranks, which the sender initialises on its first Send, and a pull word
// per ordered pair; docs/shm-format.md maps it byte by byte. Only
// integers and offsets live there, never a pointer.
//
//	ep, err := shm.Open(shm.Config{
//		Rank: rank, Size: size, JobID: job,
//		Deliver: func(peer int, h shm.Header, payload []byte) { ... },
//		Lost:    func(peer int, err error) { ... },
//	})
//	if err != nil { ... }
//	defer ep.Close()
//	err = ep.Send(ctx, peer, shm.Header{Kind: shm.Eager, Tag: 7, Seq: seq}, msg)
//
// # Concurrency contract
//
// Send is safe for any number of goroutines: senders to one peer take that
// ring's mutex for a whole frame (the ring has one producer), so frames
// that one goroutine sends to one peer arrive in order. A small frame (up
// to 1 KiB) that finds the mutex taken is left, copied, in the outbox's
// bounded queue, which the holder writes before it lets go (combiner):
// thousands of senders then return at once instead of each waiting for
// room in the ring; the holder writes them packed, many whole frames to
// a ring message (a bundle). Queue is Send for a frame that may go a
// little later: a small one (up to 512 bytes) waits in its peer's
// pending bundle until that is full, another frame goes to the peer, a
// goroutine of the rank polls, 50 µs pass or the Endpoint closes
// (Endpoint.Queue); comm's Isend queues its eager messages so. A frame of one
// slot is written straight into its slot, and read where it lies. A
// frame longer than two slots with up to 64 KiB of payload puts it in the
// pair's bulk buffer, a plain 256 KiB circular area beside the ring, and a
// one-slot bulk frame in the ring; the receiver delivers the payload where
// it lies (bulkOut): one copy in and one out, through contiguous memory.
// Queue's bundles longer than a slot go the same way, and are read where
// they lie. A
// longer frame still is pipelined through the ring in chunks the receiver
// copies straight into its reassembly buffer. Rendezvous stays in comm
// above.
//
// # Single-copy pulls
//
// A rank may also read a peer's memory directly, with Linux's
// cross-memory attach (process_vm_readv): Pull copies a range the peer
// offered (comm sends its address in a frame) into a local buffer with
// one kernel copy, where a frame through the ring costs two. The kernel
// does the reading, so no process dereferences another's pointer: a bad
// address is an error, never a crash. Each rank probes each peer once —
// it reads the canary word the peer published in its rank line and
// checks its value — and records the outcome in the segment, where the
// peer finds it: PullableBy tells a sender whether peer can pull from it.
// A probe fails under a ptrace policy (Yama's ptrace_scope, EPERM),
// across users or PID namespaces, or with Config.NoPull; the peer is then
// sent everything through the ring. Each Pull reads the canary again in
// the same system call (a reused pid fails), and fails with ErrPeerLost
// if the peer closed or died meanwhile, since its buffer may have been
// reused (Endpoint.Pull).
//
// One receive goroutine per Endpoint polls every incoming ring and calls
// Config.Deliver, one frame at a time. When nothing arrives it spins,
// yields, then sleeps on its futex word; a sender that sees the word set
// after publishing wakes it (the segment's invariants say why no wake-up is lost).
// A monitor goroutine beats this rank's heartbeat and watches the peers':
// a peer that closed, whose process is gone, or whose heartbeat stood still
// for Config.PeerTimeout is reported to Config.Lost once, after everything
// it published was delivered, and later Sends to it fail with ErrPeerLost.
// The monitor also probes peers that joined since its last look.
// Pull and PullableBy are safe for any number of goroutines; Pull must
// not be called from Deliver, as it takes as long as the copy.
//
// A goroutine that waits for a frame may instead Poll: it then sweeps the
// rings and runs Deliver itself, which saves the hand-off from the receive
// goroutine and both goroutines' wake-ups (Endpoint.Poll). PollUntil returns as
// soon as a delivery made the waiter done, and sweeps a few times before
// it reports nothing. While Polls keep
// coming the receive goroutine stands aside, blocked, for at most
// standAside (500 µs) after the last one or until PollDone.
//
// A passive Endpoint (Config.Passive, for comm's serialized worlds) has no
// receive goroutine and no flush timer: it belongs to one goroutine at a
// time, which receives in its own Polls and, when there is nothing to
// poll for, waits in Sleep on the rank's futex (senders wake it as they
// wake a sleeping receive goroutine; a lost peer, ctx or a heartbeat end
// it too). With nobody beside that goroutine, the rings and outboxes take
// no locks, and queued frames leave at its next call (Config.Passive).
//
// Besides its ring, each ordered pair of ranks has SignalSlots signal
// counters (Endpoint.SignalWord): Signal is an atomic add there, Signals a load, so
// a barrier between ranks on one host moves one cache line per hop and no
// frame. Signal reports when the peer's receive goroutine sleeps, so the
// caller can wake it with a frame, and Config.Idle runs just before that
// goroutine sleeps.
//
// Close marks the rank closed; the last rank out removes the file, and
// none does while a rank has not joined, so what was sent to that rank
// waits for it. CleanStale removes the segments no rank can use any more:
// every rank joined and all their processes died, or some rank never
// joined, none of the others lives, and StaleAge has passed.
//
// # Faults
//
// Any process of the user may truncate the segment's file, and a rank
// that then touches a lost page gets SIGBUS. The Endpoint's own
// goroutines (receive, monitor, flush timers) turn such a fault into a
// panic (debug.SetPanicOnFault, set once per goroutine) that they
// recover, and the monitor compares the file's size with the segment's
// every Heartbeat; either way the Endpoint fails: the mapping is replaced
// by private zeroed memory, so nothing in the process faults on it any
// more, and every peer is lost with an error wrapping ErrBadSegment. The
// callers' goroutines are not shielded, as that would cost on every
// frame: one that touches the segment before the Endpoint failed still
// dies (Endpoint.shielded). A bulk buffer's consumed count that cannot be true
// (past the bytes sent, or smaller than before) loses the peer too,
// rather than stall its sender.
//
// # Performance
//
// On a 2-core KVM guest (AMD EPYC), go test -bench: a round trip of 8-byte
// frames took about 300 ns (150 ns one way), the same between two
// processes as between two endpoints of one; one sender streamed 8-byte
// frames at about 11 M frames/s and 64 KiB frames at about 0.9 GB/s. A
// receiver asleep on its futex delivered a frame about 12 µs after the
// Send (BenchmarkWake; 14–18 µs on 2026-11-22, 13–24 µs on a later host
// on 2026-11-25), and a passive one, whose own goroutine sleeps in Sleep
// and polls the frame in itself, 5–6 µs (BenchmarkWakePassive; 5.4–8.4
// µs on the later host): the cost of FUTEX_WAKE and the scheduler, paid
// only after tens of microseconds of idleness. Two idle endpoints use no
// measurable CPU (TestSleepWake). Through comm, whose blocking calls Poll
// for a while (comm's spinFor) before they sleep, a ping-pong of 8-byte
// messages between two processes took 0.22–0.24 µs one way on a quiet
// machine (Open MPI's shared memory: 0.13–0.16 µs), and a 2-rank barrier
// on signal counters 0.18–0.20 µs (it took 85 µs per message when every
// frame went from the receive goroutine to a goroutine parked in comm).
// BenchmarkPull read a second process's memory at about 3.5 GB/s in 16 KiB
// pulls, 7 GB/s in 64 KiB ones and 11–12 GB/s from 1 MiB up (copy()
// inside one process: 22–26 GB/s); a pull costs about 2 µs of system call
// and page pinning whatever its size, of which re-reading the canary is
// about 0.5 µs. On the later host, whose system calls cost more (page-
// table isolation), 4 KiB took 4.5 µs, 16 KiB 3.7, 64 KiB 5.8, and 1 and
// 4 MiB ran at 17–18 GB/s in one call each; hence bulk buffers carry up
// to 64 KiB and comm pulls from there (comm.DefaultPullLimit).
//
// Linux only: elsewhere Open returns ErrUnsupported.
package shm
