// Package measure fills a machine model with measured costs: Smelt's
// pairwise benchmark (OSDI'16 §3.2), which times sending and receiving
// small messages between every ordered pair of hardware threads over the
// same message-passing queues the runtime uses (package ring), so the costs
// include whatever the machine's cache-coherency protocol does.
//
//	m, err := sysfs.Local()                    // topology of this machine
//	r, err := measure.Pairwise(ctx, measure.Config{}, nil)
//	m, err = measure.Merge(m, r)               // the model, with measured costs
//	err = m.WriteFile("machine.json")
//
// # Method
//
// For every ordered pair (i, j), i ≠ j, of the CPUs in Config.CPUs,
// Pairwise starts a sender goroutine pinned to CPU i and a receiver
// goroutine pinned to CPU j (the caller's goroutine is never pinned),
// connected by a fresh ring.NewPairs queue pair of Config.Slots 64-byte
// slots: the forward ring carries 8-byte messages from i to j, the reverse
// ring acknowledgements from j to i. Both spin until the other is pinned,
// then run Config.Warmup untimed and Config.Reps timed repetitions of three
// phases:
//
//  1. Send. The sender reads the clock, makes Config.Batch (8) back-to-back
//     TrySend calls, reads the clock again; the sample is the interval / 8.
//     The receiver meanwhile drains the ring with TryRecv, so the sender
//     writes lines the receiver is reading, as in a real exchange. Smelt
//     times batches of 8 "to compensate for the possible existence of a
//     hardware write buffer": a single store returns once buffered, before
//     the cache line is fetched. The receiver then acknowledges.
//  2. Receive. The sender enqueues a batch of 8, untimed, then publishes the
//     repetition's number in an atomic word. The receiver spins, untimed,
//     until it sees that number, so all 8 messages are already queued and
//     visible; it then reads the clock, makes 8 TryRecv calls (each must
//     succeed), reads the clock again; the sample is the interval / 8, the
//     cost of receiving an already-queued message (Smelt's t_receive). It
//     then acknowledges.
//  3. Round trip. The sender times one TrySend, the receiver's echo, and
//     the TryRecv that gets it: one sample, not divided.
//
// All waits spin (TryRecv or an atomic load in a loop, checking ctx every
// 64 polls): a thread that slept would wake on a cold core. The rings are
// empty at the start of each phase and Slots ≥ 2×Batch, so a timed TrySend
// never finds the ring full.
//
// Reps is split over up to four rounds, each visiting every pair with fresh
// threads and rings: what one visit measures depends on how its threads and
// ring happen to fall (on the development machine one visit's mean send
// cost ranged over 16–54 ns with SDs of 2–9 ns), and several visits let the
// mean and SD include that spread.
//
// # Loaded phase: latency under load
//
// The send and receive costs are pipelined (a batch of 8) and measured
// with one pair busy and the other CPUs idle, so neither contains the time
// a cache line takes to travel from sender to receiver in a dependent hop,
// nor how that travel slows when every CPU exchanges at once, as in a
// collective on a whole team. A tree pays that travel once per level.
//
// After the pairwise phase, unless Config.SkipLoaded, Pairwise schedules
// the unordered pairs in the rounds of a round-robin tournament (n−1
// rounds of n/2 pairs for even n; n rounds with one CPU resting each for
// odd n). One worker goroutine is pinned to each CPU for the whole phase
// (starting fresh ones every round cost milliseconds a round on a busy
// 16-CPU machine) and all pass a barrier before each round; then every
// pair of the round runs at once, on a fresh queue pair that the
// lower-numbered CPU makes and hands to its partner: it times
// Config.Warmup untimed and Config.Reps timed round trips (one TrySend,
// the partner's echo, the TryRecv that gets it), the partner echoes. The
// tournament is run up to four times, splitting Reps, like the pairwise
// visits. Then, with RTT
// the median loaded round trip of the pair (Result.LoadedRTT),
//
//	Latency[i][j] = Latency[j][i] = max(0, RTT/2 − (s[i][j]+r[i][j]+s[j][i]+r[j][i])/2)
//
// the time a message spends in flight beyond its send and receive costs,
// taken as equal both ways. Merge puts it in topo.Model.Latency, which
// the tree simulator adds to every message (package tree). The phase is
// 4(n−1) rounds against the pairwise phase's 4n(n−1) pair visits, a small
// fraction of the time; each round trip carries one clock reading, which
// is not subtracted (a few per cent of a busy machine's hop).
//
// Each pair's three sample sets are summarized by Summarize: the largest 10%
// dropped (interrupts, preemption and other processes only ever lengthen a
// sample), then the mean and the population standard deviation, as Smelt's
// evaluate-pairwise.py does. Result.Send.Mean[i][j] is what CPU i pays to
// send to j and Result.Recv.Mean[i][j] what j pays to receive from i,
// matching topo.Model.
//
// The clock is time's monotonic clock (time.Since on a time with a
// monotonic reading reads only that clock, no wall time). One reading
// costs Result.ClockNs (about 20–40 ns with the vDSO); a timed batch spans
// one reading, so each per-message sample includes ClockNs / 8 of clock
// overhead and each round trip ClockNs. Nothing is subtracted: Smelt's
// rdtscp timings carried their overhead the same way.
//
// Pinning uses package affinity; CPUs outside the process's affinity mask
// are an error that names them. A pair costs about Reps × 3 round trips
// plus four thread start-ups: about 1 ms with the default 200 repetitions
// on an idle machine, so a 20-CPU machine (380 pairs) takes about half a
// second. Other processes running on the measured CPUs inflate the costs
// severalfold; measure an idle machine.
package measure
