package collective

// The leaders' schedules across hosts (hier.go): pure functions of a
// host's index h among H hosts, so that every leader derives the same
// exchanges, and tests can run them without a network.

// A leaderStep is one step of a leader's exchange with another host's
// leader (by host index).
type leaderStep struct {
	peer int
	// send and recv say which ways the step goes; both: an exchange,
	// where both sides send first, then receive.
	send, recv bool
	// fold says how a received value combines with the accumulator:
	// foldNone (take it as the result), foldAfter (acc = acc ∘ in: the
	// peer's hosts come after this one's) or foldBefore (acc = in ∘ acc).
	fold int
}

// The ways a received value folds into the accumulator.
const (
	foldNone = 1 + iota
	foldAfter
	foldBefore
)

// doublingSteps is host h's part of an allreduce among H leaders by
// recursive doubling, which ends with every leader holding the same
// value. With P the largest power of two ≤ H, leaders P..H-1 first send
// their value to leader h-P, which folds it in after its own, and take
// the result back at the end; leaders 0..P-1 exchange with h^1, h^2,
// h^4, ..., each folding the lower block's value before the higher's.
// So every leader computes the one bracketing, with hosts in order
// within each pair: for 2 hosts h0∘h1, for 4 (h0∘h1)∘(h2∘h3), for 3
// (h0∘h2)∘h1. A zero-byte run of the same steps is a barrier.
func doublingSteps(h, hosts int) []leaderStep {
	p := 1
	for p*2 <= hosts {
		p *= 2
	}
	if h >= p {
		return []leaderStep{{peer: h - p, send: true}, {peer: h - p, recv: true, fold: foldNone}}
	}
	var steps []leaderStep
	extra := h+p < hosts
	if extra {
		steps = append(steps, leaderStep{peer: h + p, recv: true, fold: foldAfter})
	}
	for mask := 1; mask < p; mask <<= 1 {
		peer, fold := h^mask, foldAfter
		if peer < h {
			fold = foldBefore
		}
		steps = append(steps, leaderStep{peer: peer, send: true, recv: true, fold: fold})
	}
	if extra {
		steps = append(steps, leaderStep{peer: h + p, send: true})
	}
	return steps
}

// bcastParent returns the host whose leader sends host h's leader a
// broadcast from host root among H hosts, or -1 at root: a binomial
// tree over the hosts numbered from root.
func bcastParent(h, root, hosts int) int {
	v := (h - root + hosts) % hosts
	if v == 0 {
		return -1
	}
	return (v - highBit(v) + root) % hosts
}

// bcastChildren returns the hosts host h's leader sends a broadcast from
// host root to, farthest subtree first: in the numbering from root, v's
// children are v+s for each power of two s > v with v+s < H.
func bcastChildren(h, root, hosts int) []int {
	v := (h - root + hosts) % hosts
	var kids []int
	for s := highBit(hosts); s > v; s >>= 1 {
		if v+s < hosts {
			kids = append(kids, (v+s+root)%hosts)
		}
	}
	return kids
}

// highBit returns v's highest set bit (v > 0).
func highBit(v int) int {
	b := 1
	for b*2 <= v {
		b *= 2
	}
	return b
}
