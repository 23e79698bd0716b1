// Package shm is Plexus's transport between ranks on one host: the rings
// of package ring, placed in a memory-mapped file that every rank of the
// job maps, carrying the comm layer's frames without a system call.
//
// Each rank opens an Endpoint on the job's segment,
// Dir/plexus-<job>-<uid>: the first creates it, the others join it. Open
// refuses a segment with ErrBadSegment if it is not private to the user
// (a regular file, not a symbolic link, owned by the user, mode 0600: the
// name is guessable, and another user may have made it first), is
// corrupted, or belongs to another job or geometry. docs/shm-format.md
// maps the segment byte by byte; docs/design/shm.md says how the package
// works.
//
// A frame is a frame.Header and a payload (package transport/frame); an
// Endpoint carries the comm layer's kinds, frame.Eager to frame.Credit.
//
//	ep, err := shm.Open(shm.Config{
//		Rank: rank, Size: size, JobID: job,
//		Deliver: func(peer int, h frame.Header, payload []byte) { ... },
//		Lost:    func(peer int, err error) { ... },
//	})
//	if err != nil { ... }
//	defer ep.Close()
//	err = ep.Send(ctx, peer, frame.Header{Kind: frame.Eager, Tag: 7, Seq: seq}, msg)
//
// # Concurrency contract
//
// Send is safe for any number of goroutines, and frames that one
// goroutine sends to one peer arrive in the order it sent them. Send
// returns once the frame is in the peer's ring or queued for the
// goroutine writing to that ring, so the caller may reuse its buffer at
// once; it waits while the ring is full (Endpoint.Send says how ctx
// applies). Queue is Send for a frame that may
// go a little later: a small one waits until its peer's pending bundle is
// full, another frame goes to the peer, a goroutine of the rank polls, a
// timer of tens of microseconds fires or the Endpoint closes
// (Endpoint.Queue); comm's Isend queues its eager messages so, and a
// window of them leaves together.
//
// Config.Deliver receives every frame, from the Endpoint's one receive
// goroutine, one at a time and in each peer's send order; the payload is
// valid only during the call, and Deliver should hand work off rather
// than block. A goroutine that waits for a frame may instead Poll: it
// then receives and runs Deliver itself, which saves a hand-off and a
// wake-up (Endpoint.Poll); PollUntil returns as soon as a delivery made
// the waiter done, and PollDone gives the rings back to the receive
// goroutine. A passive Endpoint (Config.Passive, for comm's serialized worlds)
// has no receive goroutine: it belongs to one goroutine at a time, which
// receives in its own Polls and waits for frames in Sleep.
//
// Besides frames, each ordered pair of ranks has SignalSlots signal
// counters (Endpoint.SignalWord): Signal is an atomic add there and
// Signals a load, so a barrier between ranks on one host moves no frame.
// Signal reports when the peer's receive goroutine sleeps, so the caller
// can wake it with a frame, and Config.Idle runs just before that
// goroutine sleeps.
//
// Each rank also owns a few lines of the segment's collective area, its
// posts (Endpoint.Posts): a sequence word and up to PostBytes of payload
// per line, which every rank can poll, so that a flat barrier, broadcast
// or allreduce of a few bytes (comm/collective) moves one line per rank
// and no frame. A post wakes the ranks that sleep.
//
// # Single-copy pulls
//
// A rank may also read a peer's memory directly, with Linux's
// cross-memory attach (process_vm_readv): Pull copies a range the peer
// offered (comm sends its address in a frame) into a local buffer with
// one kernel copy, where a frame through the ring costs two. The kernel
// does the reading, so no process dereferences another's pointer: a bad
// address is an error, never a crash. PullableBy tells a sender whether
// a peer can pull from it; a peer cannot under a ptrace policy (Yama's
// ptrace_scope), across users or PID namespaces, or with Config.NoPull,
// and is then sent everything through the ring. Every Pull checks, in
// the same system call, that it reads the peer's process (a reused pid is
// caught), and fails with ErrPeerLost if the peer closed or died
// meanwhile, since its buffer may have been reused (Endpoint.Pull). Pull and
// PullableBy are safe for any number of goroutines; Pull must not be
// called from Deliver, as it takes as long as the copy.
//
// # Lost peers and closing
//
// A peer that closed, whose process is gone, or whose heartbeat stood
// still for Config.PeerTimeout is reported to Config.Lost once, after
// everything it published was delivered, and later Sends to it fail with
// ErrPeerLost. A dead process is noticed within one Config.Heartbeat.
//
// Close marks the rank closed; the last rank out removes the file, and
// none does while a rank has not joined, so what was sent to that rank
// waits for it. CleanStale removes the segments no rank can use any more:
// every rank joined and all their processes died, or some rank never
// joined, none of the others lives, and a minute has passed since the
// segment was made.
//
// # Faults
//
// Any process of the user may truncate the segment's file. The Endpoint
// then fails, within a Heartbeat: every peer is lost with an error
// wrapping ErrBadSegment, and nothing in the process faults on the
// segment any more. A goroutine of the caller that touches a lost page
// before that (inside Send, say) still dies of SIGBUS: shielding every
// frame would cost on every frame. A peer whose bulk-buffer accounting
// cannot be true is lost too, rather than stall its sender.
//
// # Performance
//
// A round trip of small frames costs a few hundred nanoseconds, the same
// between two processes as within one; a receiver asleep on its doorbell
// costs around ten microseconds to wake, which is why comm polls for a
// while before it sleeps; a Pull costs microseconds of system call and
// then copies at several GB/s. BenchmarkPingPong, BenchmarkStream,
// BenchmarkWake, BenchmarkWakePassive and BenchmarkPull measure them;
// docs/design/shm.md gives the orders of magnitude and the
// docs/benchmarks.md sections that hold the runs.
//
// Linux only: elsewhere Open returns ErrUnsupported.
package shm
