package shm

// Invariants (the segment protocol; docs/shm-format.md has the byte map):
//
// The segment holds only integers and offsets, never a pointer of any
// process, so each process may map it anywhere.
//
// Who writes which word:
//   - header line: the creator (the rank whose O_EXCL open succeeded),
//     once, before any other rank maps the file; magic is stored last and
//     atomically, so a rank that loads the magic sees a complete header.
//   - rank line r: pid, beat and state only by rank r (pid by CAS from 0,
//     so two processes cannot claim one rank); wait by rank r (set to 1
//     before sleeping) and by any sender to r (CAS 1 → 0 before waking r).
//   - rank line r: canary address and value only by rank r, once, value
//     first, at Open (pull.go); a peer reads them after loading a non-zero
//     address.
//   - pair word (from, to): only rank from, by CAS unused → initialising,
//     then a store of ready after ring.New has initialised the ring; rank
//     to attaches the ring only after loading ready.
//   - pull word (reader, owner): only rank reader, by CAS from unprobed to
//     the outcome of its probe of owner's memory (pull.go); rank owner
//     loads it to decide whether to offer reader its buffers.
//   - ring (from, to): its sender side only by rank from, its receiver line
//     only by rank to (package ring's own invariants).
//   - signal counter (from, to, slot): only rank from, by atomic add; it
//     only grows. Rank to only loads it (signal.go).
//   - post line (rank, lane, slot): only rank rank, payload first, then an
//     atomic store of its sequence word, which only grows; any rank loads
//     the word, then reads the payload (posts.go has the reuse rule).
//
// Sleeping without losing a wake-up (Dekker's pattern on sequentially
// consistent atomics): the receiver stores wait = 1 and then polls every
// ring; a sender publishes a message (an atomic store of the slot's
// control word) and then loads wait. At least one of them sees the other's
// store: either the receiver's poll finds the message, or the sender sees
// wait = 1, CASes it to 0 and rings the receiver's doorbell (a byte into
// its FIFO, bell_linux.go). A ring that comes before the receiver reads
// its doorbell waits in the FIFO, so it is not lost. Waits also time out,
// so liveness and Close are checked anyway.
//
// Closing: a rank finishes (or gives up) every Send, then stores state =
// closed; a receiver that sees closed drains the rank's ring before it
// reports the rank lost, so nothing published is dropped.

import (
	"hash/fnv"
	"sync/atomic"
	"unsafe"

	"github.com/plexus-hpc/plexus/ring"
)

const (
	magic   = 0x3130534d4858504c // "PLXHMS01", little-endian
	version = 7

	line     = 64
	pageSize = 4096

	// header words
	magicOff    = 0
	versionOff  = 8
	jobOff      = 16
	sizeOff     = 24
	ranksOff    = 32
	slotsOff    = 40
	ringSizeOff = 48
	ringsAtOff  = 56

	// rank line words, from the line's start
	rankLines = line
	pidOff    = 0
	beatOff   = 8
	stateOff  = 16
	waitOff   = 24 // 32-bit sleep word: 1 while the rank sleeps on its doorbell
	canaryAt  = 32 // address of the rank's canary word, in its own memory
	canaryVal = 40 // the value the canary word holds
)

// Rank states.
const (
	stateAbsent = iota // never joined
	stateAlive
	stateClosed
)

// Pair states.
const (
	pairUnused = iota
	pairInit
	pairReady
)

// Pull states (pull words).
const (
	pullUnprobed = iota
	pullCapable
	pullIncapable
)

// layout is where everything lives in a segment of ranks ranks whose rings
// have slots slots; it is computed, never read from the segment.
type layout struct {
	ranks, slots                                                 int
	pairsOff, pullsOff, signalsOff, postsOff, ringsOff, bulksOff int
	ringBytes, segBytes                                          int
}

func newLayout(ranks, slots int) layout {
	l := layout{ranks: ranks, slots: slots, ringBytes: ring.RegionSize(slots)}
	l.pairsOff = rankLines + ranks*line
	l.pullsOff = l.pairsOff + 8*ranks*ranks
	l.signalsOff = roundUp(l.pullsOff+8*ranks*ranks, line)
	l.postsOff = l.signalsOff + ranks*ranks*SignalSlots*line
	l.ringsOff = roundUp(l.postsOff+ranks*postLines*line, pageSize)
	l.bulksOff = roundUp(l.ringsOff+ranks*ranks*l.ringBytes, pageSize)
	l.segBytes = roundUp(l.bulksOff+ranks*ranks*bulkRegion, pageSize)
	return l
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

func (l layout) rankLine(r int) int        { return rankLines + r*line }
func (l layout) pairWord(from, to int) int { return l.pairsOff + 8*(from*l.ranks+to) }
func (l layout) ringAt(from, to int) int   { return l.ringsOff + (from*l.ranks+to)*l.ringBytes }
func (l layout) bulkAt(from, to int) int   { return l.bulksOff + (from*l.ranks+to)*bulkRegion }
func (l layout) signalAt(from, to, slot int) int {
	return l.signalsOff + ((from*l.ranks+to)*SignalSlots+slot)*line
}
func (l layout) postAt(rank, lane, slot int) int {
	return l.postsOff + (rank*postLines+lane*PostDepth+slot)*line
}
func (l layout) pullWord(reader, owner int) int {
	return l.pullsOff + 8*(reader*l.ranks+owner)
}

// jobHash identifies a job inside its segment, so that a file that merely
// has the right name is not taken for the job's.
func jobHash(job string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(job))
	return h.Sum64()
}

// word returns the 64-bit word at off in mem; off must be a multiple of 8
// inside the mapping.
func word(mem []byte, off int) *uint64 { return (*uint64)(unsafe.Pointer(&mem[off])) }

// word32 returns the 32-bit word at off in mem.
func word32(mem []byte, off int) *uint32 { return (*uint32)(unsafe.Pointer(&mem[off])) }

// writeHeader initialises the header of a fresh, zeroed segment for job;
// only the creator calls it, before anyone else maps the file.
func (l layout) writeHeader(mem []byte, job string) {
	*word(mem, versionOff) = version
	*word(mem, jobOff) = jobHash(job)
	*word(mem, sizeOff) = uint64(l.segBytes)
	*word(mem, ranksOff) = uint64(l.ranks)
	*word(mem, slotsOff) = uint64(l.slots)
	*word(mem, ringSizeOff) = uint64(l.ringBytes)
	*word(mem, ringsAtOff) = uint64(l.ringsOff)
	atomic.StoreUint64(word(mem, magicOff), magic)
}
