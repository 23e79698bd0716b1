package rail

import (
	"fmt"
	"math"
	"sort"
	"time"
)

// Defaults filled in by Config.Validate.
const (
	// DefaultMinChunk is the shortest chunk a split gives a rail: below
	// a few kilobytes a rail's latency, not its bandwidth, sets the time.
	DefaultMinChunk = 4 << 10
	// DefaultOffload is the cost of handing a chunk to another goroutine
	// (T_O in the paper's equation 1): a wake-up, microseconds.
	DefaultOffload = 5 * time.Microsecond
	// DefaultMaxPacket is the most bytes of small messages Plan packs
	// into one transfer.
	DefaultMaxPacket = 64 << 10
)

// Rail is one rail as the strategy sees it.
type Rail struct {
	Profile Profile
	// Busy is the predicted time until the rail is idle: the rest of what
	// it is sending now, from the caller's "now".
	Busy time.Duration
	// Down marks a rail that takes no work (it failed).
	Down bool
	// Slowdown multiplies the profile's predicted transfer times: what
	// the rail has been delivering lately against its samples (traffic
	// of others on the link, a degraded link). Zero, a negative number
	// or NaN means 1; at most 1e9 counts.
	Slowdown float64
}

// Predict is the rail's predicted time to transfer n bytes once idle:
// its profile's, times its slowdown.
func (r Rail) Predict(n int) time.Duration {
	return time.Duration(math.Round(r.predict(float64(n))))
}

func (r Rail) predict(n float64) float64 { return r.Profile.predict(n) * r.slow() }

func (r Rail) capacity(t float64) float64 { return r.Profile.capacity(t / r.slow()) }

func (r Rail) slow() float64 {
	switch {
	case !(r.Slowdown > 0): // zero, negative or NaN: no measurement
		return 1
	case math.IsInf(r.Slowdown, 1):
		return maxSlowdown
	}
	return min(r.Slowdown, maxSlowdown)
}

// maxSlowdown bounds a rail's slowdown, so that an overflowed ratio
// makes the rail too slow to choose without making its times infinite,
// which the arithmetic of a split cannot take.
const maxSlowdown = 1e9

// Config tunes the decisions. The zero value is the defaults.
type Config struct {
	// MinChunk is the shortest chunk of a split message; a rail whose
	// share would be shorter takes none.
	MinChunk int
	// Offload is added to every rail's time when a message is split, for
	// handing its chunks to goroutines of their own.
	Offload time.Duration
	// MaxPacket is the most bytes Plan packs into one packet.
	MaxPacket int
	// Threshold is the size from which Plan splits messages; zero means
	// the one Threshold finds from the samples.
	Threshold int
}

// Validate fills in the defaults.
func (c *Config) Validate() {
	if c.MinChunk <= 0 {
		c.MinChunk = DefaultMinChunk
	}
	if c.Offload <= 0 {
		c.Offload = DefaultOffload
	}
	if c.MaxPacket <= 0 {
		c.MaxPacket = DefaultMaxPacket
	}
}

// Chunk is the part of a message that one rail carries.
type Chunk struct {
	Rail        int
	Offset, Len int
	// Done is the predicted finishing time, from now: the rail's busy
	// time, the offload cost if the message was split, and the transfer.
	Done time.Duration
}

// Pick returns the rail that would deliver n bytes first, counting each
// rail's busy time, and when; -1 if every rail is down. Ties go to the
// lower index. A rail's time for n bytes counts as no less than n bytes
// at its streaming rate (its profile's slope beyond the samples): see
// Rail.deliver.
func Pick(rails []Rail, n int) (int, time.Duration) {
	best, done := -1, time.Duration(math.MaxInt64)
	for i, r := range rails {
		if r.Down {
			continue
		}
		if d := r.Busy + r.deliver(n); d < done {
			best, done = i, d
		}
	}
	return best, done
}

// deliver is the rail's time for n bytes as Pick counts it: the
// predicted time, but no less than the n bytes take at the rail's
// streaming rate. Samples of short transfers time a rail's latency: a
// buffer on the way (a shaped link's token bucket, a queue) takes their
// bytes at once, so rails alike in latency differ in them by noise
// alone. Messages that follow each other empty that buffer, and a slower
// rail picked on that noise then holds every one back by its transfer at
// the rail's rate: a ping-pong of kilobyte messages ran at the slower
// rail's rate though its samples were no shorter (docs/benchmarks.md,
// "Rails: a rail's socket out of the netpoller"). Beyond a few kilobytes the samples
// themselves exceed the floor, which changes nothing there.
func (r Rail) deliver(n int) time.Duration {
	floor := float64(n) * r.Profile.slope() * r.slow()
	return time.Duration(math.Round(max(r.predict(float64(n)), floor)))
}

// Split divides an n-byte message (n ≥ 0) over rails so that its chunks
// finish at the same predicted time, each rail's busy time counted
// (Figure 2 of the paper): rails that would finish later than the others
// without them take nothing. When splitting, with its offload cost,
// would not finish before the best single rail, the message goes whole
// on that rail. Chunks are in offset order and cover the message exactly;
// nil when every rail is down, and only then: a message of 0 bytes goes
// whole, one empty chunk on the rail Pick chooses. A negative n panics.
func Split(rails []Rail, n int, cfg Config) []Chunk {
	if n < 0 {
		panic(fmt.Sprintf("rail: Split of a message of %d bytes", n))
	}
	cfg.Validate()
	one, done := Pick(rails, n)
	if one < 0 {
		return nil
	}
	whole := []Chunk{{Rail: one, Len: n, Done: done}}
	if n < 2*cfg.MinChunk {
		// Some share of n is below MinChunk whatever the rails, so the
		// loop below would drop rails down to one: skip its dichotomies,
		// which would cost a small message more than its transfer.
		return whole
	}
	use := upRails(rails)
	for len(use) > 1 {
		shares, finish := equalFinish(rails, use, n, cfg.Offload)
		if i := smallest(shares); shares[i] < float64(cfg.MinChunk) {
			use = append(use[:i], use[i+1:]...)
			continue
		}
		if finish >= float64(done) {
			return whole
		}
		return chunks(rails, use, shares, n, cfg.Offload)
	}
	return whole
}

// upRails is the indexes of the rails that are not down.
func upRails(rails []Rail) []int {
	var use []int
	for i, r := range rails {
		if !r.Down {
			use = append(use, i)
		}
	}
	return use
}

// equalFinish finds by dichotomy the time T at which the rails in use,
// each starting after its busy time plus offload, can together carry n
// bytes, and each rail's share of them at T (0 for a rail still busy).
func equalFinish(rails []Rail, use []int, n int, offload time.Duration) (shares []float64, finish float64) {
	start := func(i int) float64 { return float64(rails[i].Busy + offload) }
	carried := func(t float64) float64 {
		sum := 0.0
		for _, i := range use {
			sum += rails[i].capacity(t - start(i))
		}
		return sum
	}
	lo, hi := 0.0, math.Inf(1)
	for _, i := range use {
		hi = min(hi, start(i)+rails[i].predict(float64(n)))
	}
	for range 100 {
		mid := (lo + hi) / 2
		if carried(mid) >= float64(n) {
			hi = mid
		} else {
			lo = mid
		}
		if hi-lo < 0.5 {
			break
		}
	}
	shares = make([]float64, len(use))
	for k, i := range use {
		shares[k] = rails[i].capacity(hi - start(i))
	}
	return shares, hi
}

// smallest is the index of the least share.
func smallest(shares []float64) int {
	k := 0
	for i, s := range shares {
		if s < shares[k] {
			k = i
		}
	}
	return k
}

// chunks turns shares into whole-byte chunks that sum to n: each share
// scaled to n and rounded down, the bytes left to the largest share.
func chunks(rails []Rail, use []int, shares []float64, n int, offload time.Duration) []Chunk {
	total := 0.0
	for _, s := range shares {
		total += s
	}
	lens := make([]int, len(use))
	sum, big := 0, 0
	for k, s := range shares {
		lens[k] = int(s * float64(n) / total)
		sum += lens[k]
		if s > shares[big] {
			big = k
		}
	}
	lens[big] += n - sum
	out := make([]Chunk, 0, len(use))
	off := 0
	for k, i := range use {
		r := rails[i]
		out = append(out, Chunk{Rail: i, Offset: off, Len: lens[k], Done: r.Busy + offload + r.Predict(lens[k])})
		off += lens[k]
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Offset < out[b].Offset })
	return out
}

// Finish is the predicted time the last of chunks is done.
func Finish(chunks []Chunk) time.Duration {
	var t time.Duration
	for _, c := range chunks {
		t = max(t, c.Done)
	}
	return t
}
