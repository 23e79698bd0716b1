package comm

import (
	"fmt"
	"log/slog"

	"github.com/plexus-hpc/plexus/comm/match"
)

// Defaults for Config.
const (
	// DefaultEagerLimit is where eager sends stop and rendezvous starts.
	// Pick it from measurement: run BenchmarkPingPong or bench p2p over
	// the real transport at sizes around the candidate, and take the size
	// where an eager message (one copy into the transport, one out of the
	// pooled buffer if it came unexpected) costs as much as a rendezvous
	// one (an extra RTS/CTS round trip, no intermediate copy). Over TCP
	// the round trip dominates up to tens of KiB, so 64 KiB, Open MPI's
	// TCP eager limit too (docs/benchmarks.md, section "Eager limit 16 →
	// 64 KiB", 2026-11-22). Peers that can pull (PullLimit) may start
	// rendezvous earlier.
	DefaultEagerLimit = 64 << 10
	// DefaultPullLimit is where rendezvous starts towards a peer that can
	// pull this rank's memory (shared memory with cross-memory attach),
	// when it is below EagerLimit: a single kernel copy plus a FIN beats
	// the eager path from about this size. Below it shared memory sends
	// through its bulk buffers (payloads up to 64 KiB), which beat a pull
	// while a pull's system call (microseconds) outweighs the second copy;
	// where system calls are dear that holds up to tens of KiB
	// (docs/benchmarks.md, section "Shared memory on a new host",
	// 2026-11-25). Equal to DefaultEagerLimit: rendezvous starts at 64 KiB
	// either way.
	DefaultPullLimit = 64 << 10
	// DefaultUnexpectedBudget bounds the memory one rank spends on
	// unexpected messages (see Config.UnexpectedBudget).
	DefaultUnexpectedBudget = 64 << 20
	// DefaultChunkSize is the payload of one rendezvous data frame:
	// large enough that per-frame costs vanish in the copy, small enough
	// that a 1 MiB message takes more than one, so the receiver copies one
	// frame while the next is in flight. The size among those that pass
	// both tests was picked by measurement over TCP (docs/benchmarks.md,
	// "Chunk size between processes" in section "Rendezvous work on the
	// polling goroutine").
	DefaultChunkSize = 512 << 10
)

// msgOverhead is what one queued link message costs beyond its payload,
// against the link's window (Link).
const msgOverhead = 64

// entryOverhead is what one stored unexpected message costs the receiver
// beyond its payload buffer: its msg (64 bytes), the matching table's
// node (24) and the buffer's slice header (24), rounded up for the
// table's index and the allocator's size classes. TestUnexpectedBound
// checks the heap against it.
const entryOverhead = 128

// eagerCost is what an eager message of n bytes costs the receiver while
// it is stored unexpected, and so the credit it takes: its pooled buffer
// (n rounded up to the buffer's size class) plus entryOverhead.
func eagerCost(n int) int64 {
	if n > maxPooled {
		return int64(n) + entryOverhead
	}
	return int64(minPooled)<<class(n) + entryOverhead
}

// rtsCost is what a stored rendezvous announcement costs the receiver:
// its msg and node, and an offer to pull with its entry in World.offers,
// fit in what an empty eager message is charged.
const rtsCost = entryOverhead + minPooled

// Config describes one world. The zero values of the optional fields mean
// the defaults.
type Config struct {
	// Rank is this world's rank in [0, Size).
	Rank int
	// Size is the number of ranks.
	Size int
	// EagerLimit: messages shorter than this go eagerly (when the sender
	// has credit); the others by rendezvous.
	EagerLimit int
	// PullLimit: towards a peer that can pull from this rank's memory
	// (shared memory with cross-memory attach), messages from this size
	// on go by rendezvous even below EagerLimit.
	PullLimit int
	// UnexpectedBudget bounds the memory, in bytes, that eager messages
	// from other ranks take at this rank while they wait unexpected (no
	// receive posted for them yet). Each is charged what it costs stored:
	// its payload rounded up to its pooled buffer's size class (64 bytes
	// at least, then powers of two) plus 128 bytes for its entry. Each
	// peer has an equal share of the budget as credit; a sender short of
	// credit sends by rendezvous, and nothing is dropped or fails.
	//
	// A rendezvous announcement (RTS) is charged 192 bytes of the same
	// credit, but it is sent even when the credit is spent, which takes
	// the sender's credit below zero and stops its eager sends until
	// receives give credit back: a posted receive must find its message
	// however many others wait unmatched (MPI's progress rule), and only
	// the announcement tells this rank that the message exists. So this
	// rank holds at most UnexpectedBudget bytes of eager messages plus
	// 192 bytes for each rendezvous send in flight to it beyond that —
	// each of which is an unfinished send request at its sender, whose
	// data stays there. UnexpectedBytes reports the sum. The bound holds
	// for ranks that run this code (it is flow control between
	// cooperating ranks, not a defence against a hostile one) and covers
	// the stored entries, not the garbage collector's slack around them.
	UnexpectedBudget int64
	// ChunkSize is the size of one rendezvous data frame.
	ChunkSize int
	// Transport is how JoinWith reaches the other ranks: TransportAuto
	// (shared memory to the ranks on this host, TCP to the others),
	// TransportTCP or TransportSHM (every rank must be on this host).
	// Empty means the environment's PLEXUS_TRANSPORT, else auto. The
	// worlds of package commtest ignore it.
	Transport string
	// Serialized promises that the world is used by one goroutine at a
	// time: no two of its calls (its requests' and links' included, Close
	// too) run at once — each happens before the next, as from one
	// goroutine — which is MPI's MPI_THREAD_SERIALIZED. Messages are then
	// received only inside the world's calls, by the calling goroutine,
	// as an MPI rank's are, and matching, request reuse and the shared
	// memory rings take no locks. It applies when every rank runs on
	// this host over shared memory (JoinWith with the auto or shm
	// transport, or commtest.SHM with shm.Config.Passive);
	// otherwise the world runs as usual. World.Serialized says which.
	Serialized bool
	// MatchShards is how many independently locked parts the world's
	// matching of messages to receives has: a power of two up to 65536;
	// zero means 256. Receives and probes with exact keys lock one part;
	// those with AnySource or AnyTag look at every part and lock those
	// holding unreceived messages, so their cost grows with the count
	// (docs/benchmarks.md, "Wildcard receives without locking every
	// shard"). A program that receives mostly with wildcards (a server
	// taking requests from any rank) does better with few; many
	// goroutines receiving on exact keys at once meet less on many.
	MatchShards int
	// Logger receives what the world's transports and JoinWith's address
	// exchange have to report: refused connections (strangers, a wrong
	// secret) at Warn, rate-limited to a few records a second; a peer
	// lost other than by closing its world, a protocol error or a failed
	// segment at Error; what is expected in a job's life (a peer that
	// closed its world and exited) at Debug at most, so a job that ends
	// normally logs nothing at Info or above. Nil means slog.Default().
	// The errors that operations return do not depend on it.
	Logger *slog.Logger
}

// The values of Config.Transport and PLEXUS_TRANSPORT.
const (
	TransportAuto = "auto"
	TransportTCP  = "tcp"
	TransportSHM  = "shm"
)

// withDefaults returns c with zero fields filled in.
func (c Config) withDefaults() Config {
	if c.EagerLimit == 0 {
		c.EagerLimit = DefaultEagerLimit
	}
	if c.PullLimit == 0 {
		c.PullLimit = DefaultPullLimit
	}
	if c.UnexpectedBudget == 0 {
		c.UnexpectedBudget = DefaultUnexpectedBudget
	}
	if c.ChunkSize == 0 {
		c.ChunkSize = DefaultChunkSize
	}
	return c
}

// Validate reports what is wrong with c, after defaults.
func (c Config) Validate() error {
	c = c.withDefaults()
	switch {
	case c.Size < 1:
		return fmt.Errorf("comm: size %d, want at least 1", c.Size)
	case c.Rank < 0 || c.Rank >= c.Size:
		return fmt.Errorf("comm: rank %d outside [0, %d)", c.Rank, c.Size)
	case c.EagerLimit < 0 || c.EagerLimit > maxPooled:
		return fmt.Errorf("comm: eager limit %d outside [0, %d]", c.EagerLimit, maxPooled)
	case c.PullLimit < 0:
		return fmt.Errorf("comm: negative pull limit %d", c.PullLimit)
	case c.UnexpectedBudget < 0:
		return fmt.Errorf("comm: negative unexpected budget %d", c.UnexpectedBudget)
	case c.ChunkSize < 1:
		return fmt.Errorf("comm: chunk size %d, want at least 1", c.ChunkSize)
	case !validTransport(c.Transport):
		return fmt.Errorf("comm: transport %q, want auto, tcp or shm", c.Transport)
	}
	if err := (&match.Config{Shards: c.MatchShards}).Validate(); err != nil {
		return fmt.Errorf("comm: MatchShards: %w", err)
	}
	return nil
}

func validTransport(t string) bool {
	return t == "" || t == TransportAuto || t == TransportTCP || t == TransportSHM
}

// share is the eager credit each sender starts with towards this rank.
func (c Config) share() int64 {
	if c.Size < 2 {
		return c.UnexpectedBudget
	}
	return c.UnexpectedBudget / int64(c.Size-1)
}
