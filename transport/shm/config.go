package shm

import (
	"cmp"
	"fmt"
	"log/slog"
	"math"
	"time"

	"github.com/plexus-hpc/plexus/ring"
	"github.com/plexus-hpc/plexus/transport/frame"
)

// Defaults filled in by Config.Validate.
const (
	// DefaultDir is where segments live: the tmpfs every Linux mounts.
	DefaultDir = "/dev/shm"
	// DefaultSlots is the slot count of each ring: 64 KiB per ordered pair
	// of ranks, messages (chunks) of up to 28 KiB.
	DefaultSlots = 1024
	// DefaultMaxPayload is the longest payload a frame may carry.
	DefaultMaxPayload = 4 << 20
	// DefaultHeartbeat is how often a rank bumps its heartbeat word and
	// checks its peers' liveness.
	DefaultHeartbeat = 50 * time.Millisecond
	// DefaultPeerTimeout is how long a peer's heartbeat may stand still
	// before it is lost; a dead process is noticed within one Heartbeat.
	DefaultPeerTimeout = 750 * time.Millisecond
	// DefaultAttachTimeout bounds the wait for another rank to finish
	// initialising the segment.
	DefaultAttachTimeout = 5 * time.Second
	// MaxRanks bounds Size: the segment holds Size² ring slots' offsets.
	MaxRanks = 1024
	// MaxJobID is the longest accepted job id.
	MaxJobID = 255
)

// Config describes an Endpoint. Validate fills in its defaults. All ranks
// of a job must agree on Size, JobID, Dir, Slots and MaxPayload.
type Config struct {
	// Rank is this process's rank, in [0, Size).
	Rank int
	// Size is the number of ranks sharing the segment.
	Size int
	// JobID names the job, and with the user id the segment file.
	JobID string
	// Dir is the directory of the segment file; empty means DefaultDir.
	Dir string
	// Slots is each ring's slot count, a power of two; zero means
	// DefaultSlots.
	Slots int
	// MaxPayload is the longest payload sent or accepted; zero means
	// DefaultMaxPayload. Each peer may cost a buffer of this size.
	MaxPayload int
	// Heartbeat and PeerTimeout: see DefaultHeartbeat, DefaultPeerTimeout.
	Heartbeat   time.Duration
	PeerTimeout time.Duration
	// AttachTimeout: see DefaultAttachTimeout.
	AttachTimeout time.Duration
	// Deliver receives every frame, from the Endpoint's one receive
	// goroutine, in each peer's send order. The payload is valid only
	// during the call. While it runs nothing else is received, so it
	// should hand work off rather than block.
	Deliver func(peer int, h frame.Header, payload []byte)
	// DeliverRun, if set, receives in one call a run of two or more eager
	// frames that came back to back in one ring message (a bundle) with the
	// same header but for their lengths: h is the first's, payloads[i] the
	// i-th's payload (each frame's Aux is its length). The same rules as
	// Deliver's apply; frames of a run are not also passed to Deliver.
	DeliverRun func(peer int, h frame.Header, payloads [][]byte)
	// DeliverEager, if set, receives instead of Deliver an eager frame
	// with no flags that came alone: Deliver(peer,
	// frame.Header{Kind: frame.Eager, Comm: comm, Source: peer, Tag: tag,
	// Aux: len(payload)}, payload) without the Header, which a callee that copies it whole would wait
	// for (store forwarding fails). The same rules as Deliver's apply.
	DeliverEager func(peer int, comm uint32, tag int32, payload []byte)
	// Lost, if set, is called once for each peer that is lost (it closed,
	// died, stopped beating or broke the protocol), after its last
	// Deliver, with an error wrapping ErrPeerLost.
	Lost func(peer int, err error)
	// Idle, if set, is called by the receive goroutine each time it is
	// about to sleep, after it has announced so to senders (Endpoint.SignalWord): a
	// receiver that polls signal counters and has stopped polling looks at
	// them once more then. It must not block.
	Idle func()
	// Logger receives protocol errors and a failed segment at Error, and
	// a peer whose memory this rank cannot read (see Pull) at Warn; nil
	// means slog.Default(). A peer that closes its Endpoint or exits
	// after closing it logs nothing above Debug.
	Logger *slog.Logger
	// NoPull stops this rank from reading its peers' memory (Pull): it
	// marks every peer unreadable at Open, so they never offer it their
	// buffers and send it everything through the ring. For comparisons
	// and for hosts where cross-memory reads are unwelcome.
	NoPull bool
	// Passive makes the Endpoint receive only inside Poll and PollUntil,
	// in the caller's goroutine: it has no receive goroutine, and Sleep
	// waits for frames instead. The caller promises that the Endpoint's
	// methods are never called concurrently (each call happens before the
	// next; Close included), as comm's Serialized world does, so the
	// Endpoint takes no locks on its rings, and frames Queue holds back go
	// out at the next Send, Flush, Poll or Sleep rather than by a timer.
	// Frames arrive only while some goroutine polls; senders to a rank
	// that does not wait for long stall when its rings fill (as MPI ranks
	// that compute without calling MPI do). See Endpoint.Sleep.
	Passive bool

	// readMem reads another process's memory; nil means
	// process_vm_readv. Tests replace it to make probes fail.
	readMem readMem
}

// Validate checks c and fills in its defaults.
func (c *Config) Validate() error {
	if c.Size < 1 || c.Size > MaxRanks {
		return fmt.Errorf("shm: config: Size %d out of range [1, %d]", c.Size, MaxRanks)
	}
	if c.Rank < 0 || c.Rank >= c.Size {
		return fmt.Errorf("shm: config: Rank %d out of range [0, %d)", c.Rank, c.Size)
	}
	if c.JobID == "" || len(c.JobID) > MaxJobID {
		return fmt.Errorf("shm: config: JobID must have 1 to %d bytes, has %d", MaxJobID, len(c.JobID))
	}
	if c.Deliver == nil {
		return fmt.Errorf("shm: config: no Deliver function")
	}
	c.fillFuncs()
	return c.validateSizes()
}

func (c *Config) fillFuncs() {
	if c.Lost == nil {
		c.Lost = func(int, error) {}
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.Idle == nil {
		c.Idle = func() {}
	}
	c.Dir = cmp.Or(c.Dir, DefaultDir)
	if c.readMem == nil {
		c.readMem = vmRead
	}
}

func (c *Config) validateSizes() error {
	c.Slots = cmp.Or(c.Slots, DefaultSlots)
	if ring.RegionSize(c.Slots) < 0 || c.Slots < 8 {
		return fmt.Errorf("shm: config: Slots %d is not a power of two in [8, %d]", c.Slots, ring.MaxSlots)
	}
	if c.MaxPayload < 0 || int64(c.MaxPayload) > math.MaxUint32 {
		return fmt.Errorf("shm: config: MaxPayload %d out of range", c.MaxPayload)
	}
	if c.Heartbeat < 0 || c.PeerTimeout < 0 || c.AttachTimeout < 0 {
		return fmt.Errorf("shm: config: negative duration")
	}
	c.MaxPayload = cmp.Or(c.MaxPayload, DefaultMaxPayload)
	c.Heartbeat = cmp.Or(c.Heartbeat, DefaultHeartbeat)
	c.PeerTimeout = cmp.Or(c.PeerTimeout, DefaultPeerTimeout)
	c.AttachTimeout = cmp.Or(c.AttachTimeout, DefaultAttachTimeout)
	if c.PeerTimeout < 2*c.Heartbeat {
		return fmt.Errorf("shm: config: PeerTimeout %v is shorter than two Heartbeats of %v", c.PeerTimeout, c.Heartbeat)
	}
	return nil
}
