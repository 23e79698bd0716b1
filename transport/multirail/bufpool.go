package multirail

import "sync"

// bufPool is the buffers the rails' decoders and the assembly receive
// into: those handed back by Release, and the chunks of split messages
// once copied into their message. Safe for concurrent use: the rails'
// decoders (each under its own rmu), the assembly (under Link.mu) and
// Release's callers share it.
//
// Why long buffers are kept too: a stream of long messages otherwise
// receives every chunk, and assembles every message, into memory fresh
// from the operating system, whose first touch of every page is a fault
// (docs/benchmarks.md, "Rails: receiving into recycled buffers"). Kept
// buffers are bounded in number and, for the long ones, in bytes (max:
// twice the Link's window, as a receiver holds up to a window of partial
// messages and a window of whole ones in its inbox anyway).
//
// Invariant: every buffer in small has a capacity of at most freeBufMax,
// every one in big more, and bigBytes is the sum of big's capacities.
type bufPool struct {
	mu       sync.Mutex
	small    [][]byte
	big      [][]byte
	bigBytes int
	max      int // the most bytes big holds; 0: none
}

// drop empties the pool for good: a closed Link's buffers go to the
// garbage collector.
func (p *bufPool) drop() {
	p.mu.Lock()
	p.small, p.big, p.bigBytes, p.max = nil, nil, 0, 0
	p.mu.Unlock()
}

// freeBig is the most long buffers a pool keeps.
const freeBig = 8

// get returns a slice of n bytes, from a buffer handed back if one fits:
// for a short slice the last short buffer if it is large enough, for a
// long one the smallest long buffer of n to 2n bytes, or of any size at
// least n if brief is set (the caller hands it back soon: a chunk copied
// into its message). Its bytes are whatever they were.
func (p *bufPool) get(n int, brief bool) []byte {
	if n <= 0 {
		return make([]byte, n)
	}
	p.mu.Lock()
	if b := p.takeLocked(n, brief); b != nil {
		p.mu.Unlock()
		return b[:n]
	}
	p.mu.Unlock()
	return make([]byte, n)
}

// takeLocked removes and returns a buffer for n bytes, or nil. p.mu must
// be held.
func (p *bufPool) takeLocked(n int, brief bool) []byte {
	if n <= freeBufMax {
		k := len(p.small)
		if k == 0 || cap(p.small[k-1]) < n {
			return nil
		}
		b := p.small[k-1]
		p.small[k-1] = nil
		p.small = p.small[:k-1]
		return b
	}
	best := -1
	for i, b := range p.big {
		if c := cap(b); c >= n && (brief || c <= 2*n) && (best < 0 || c < cap(p.big[best])) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	return p.removeLocked(best)
}

// removeLocked removes and returns big[i]. p.mu must be held.
func (p *bufPool) removeLocked(i int) []byte {
	b := p.big[i]
	last := len(p.big) - 1
	p.big[i], p.big[last] = p.big[last], nil
	p.big = p.big[:last]
	p.bigBytes -= cap(b)
	return b
}

// put keeps b for get, unless the pool is full of buffers at least as
// long: a long buffer makes room by dropping shorter ones, so that the
// pool ends up holding the longest buffers a stream of messages needs,
// which serve its shorter chunks too.
func (p *bufPool) put(b []byte) {
	c := cap(b)
	if c == 0 {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if c <= freeBufMax {
		if len(p.small) < freeRecords {
			p.small = append(p.small, b[:0])
		}
		return
	}
	if c > p.max {
		return
	}
	for len(p.big) == freeBig || p.bigBytes+c > p.max {
		i := p.shortestLocked()
		if cap(p.big[i]) >= c {
			return
		}
		p.removeLocked(i)
	}
	p.big = append(p.big, b[:0])
	p.bigBytes += c
}

// shortestLocked returns the index of the shortest long buffer; big
// must not be empty. p.mu must be held.
func (p *bufPool) shortestLocked() int {
	k := 0
	for i, b := range p.big {
		if cap(b) < cap(p.big[k]) {
			k = i
		}
	}
	return k
}
