package multirail

import (
	"time"

	"github.com/plexus-hpc/plexus/rail"
)

// Split is how a Link divides a message among its rails.
type Split int

// The ways to split. SplitPlexus is the default; the others are what the
// benchmarks compare it with.
const (
	// SplitPlexus is NewMadeleine's: chunks that finish together,
	// counting each rail's busy time (rail.Split), small messages whole
	// on the rail that delivers them first.
	SplitPlexus Split = 1 + iota
	// SplitIso cuts every message into equal chunks, one per rail up.
	SplitIso
	// SplitWeighted cuts in proportion to the rails' sampled bandwidths
	// for large transfers, as Open MPI and UCX do.
	SplitWeighted
	// SplitSingle sends everything on the fastest rail.
	SplitSingle
)

// weightSize is the transfer size whose bandwidth weighs a rail for
// SplitWeighted and ranks it for SplitSingle.
const weightSize = 8 << 20

// plan divides n bytes over rails by s. It is pure: rails carry the
// predicted busy times from now; nil when every rail is down.
func plan(s Split, rails []rail.Rail, n int, cfg rail.Config) []rail.Chunk {
	up := upRails(rails)
	switch {
	case len(up) == 0:
		return nil
	case s == SplitPlexus:
		return rail.Split(rails, n, cfg)
	case s == SplitSingle || len(up) == 1 || n < len(up):
		best := up[0]
		for _, i := range up {
			if rails[i].Profile.Bandwidth(weightSize) > rails[best].Profile.Bandwidth(weightSize) {
				best = i
			}
		}
		return cut(rails, n, []int{best}, []float64{1})
	}
	w := make([]float64, len(up))
	for k, i := range up {
		w[k] = 1
		if s == SplitWeighted {
			w[k] = rails[i].Profile.Bandwidth(weightSize)
		}
	}
	return cut(rails, n, up, w)
}

// planWhole is plan for a message that goes whole on one rail whatever
// the rails' state (ok), without building the plan: SplitPlexus below
// twice the strategy's MinChunk, where rail.Split returns rail.Pick's
// choice without dividing. Small messages take this path, and their plan
// must not allocate.
func planWhole(s Split, rails []rail.Rail, n int, cfg rail.Config) (r int, done time.Duration, ok bool) {
	cfg.Validate()
	if s != SplitPlexus || n >= 2*cfg.MinChunk {
		return -1, 0, false
	}
	r, done = rail.Pick(rails, n)
	return r, done, r >= 0
}

func upRails(rails []rail.Rail) []int {
	var up []int
	for i, r := range rails {
		if !r.Down {
			up = append(up, i)
		}
	}
	return up
}

// cut gives rail use[k] a share of n in proportion to w[k], the bytes
// rounding leaves to the last, in offset order.
func cut(rails []rail.Rail, n int, use []int, w []float64) []rail.Chunk {
	total := 0.0
	for _, x := range w {
		total += x
	}
	var out []rail.Chunk
	off := 0
	for k, i := range use {
		l := int(float64(n) * w[k] / total)
		if k == len(use)-1 {
			l = n - off
		}
		if l == 0 && n > 0 {
			continue
		}
		r := rails[i]
		out = append(out, rail.Chunk{Rail: i, Offset: off, Len: l, Done: r.Busy + r.Predict(l)})
		off += l
	}
	if n == 0 {
		out = []rail.Chunk{{Rail: use[0]}}
	}
	return out
}

// idlePick is planWhole's answer for n bytes on idle rails (none with a
// byte unacknowledged), while ok: which rail, and when done.
type idlePick struct {
	n    int
	r    int
	done time.Duration
	ok   bool
}

// pickWhole is planWhole on the Link's rails now. On idle rails its
// answer depends only on n and on what changes only with a rail's
// failure or slowdown (which clear the memo, Link.idle), and a
// ping-pong's every Send finds the rails idle (the answer brought the
// acknowledgement): so it is computed once per size there, not per
// message. The caller holds mu.
func (l *Link) pickWhole(n int) (r int, done time.Duration, ok bool) {
	idle := l.unackedTotal() == 0
	if idle && l.idle.ok && l.idle.n == n {
		return l.idle.r, l.idle.done, true
	}
	r, done, ok = planWhole(l.cfg.Split, l.snapshot(), n, l.cfg.Strategy)
	if idle && ok {
		l.idle = idlePick{n: n, r: r, done: done, ok: true}
	}
	return r, done, ok
}
