package graph

// perm is a pseudo-random bijection of [0, n), computed one value at a
// time: a balanced Feistel network over the smallest even number of bits
// that holds n, with cycle walking for the values past n. It needs no
// table, so every rank computes the same permutation without holding it,
// and a rank's share of the output needs none of the other shares.
type perm struct {
	n    uint64
	half uint   // bits in each half
	mask uint64 // (1 << half) - 1
	keys [feistelRounds]uint64
}

// feistelRounds is four: Luby and Rackoff's bound for a strong
// pseudo-random permutation from pseudo-random round functions.
const feistelRounds = 4

// newPerm makes the permutation of [0, n) keyed by seed; n >= 1.
func newPerm(n, seed uint64) perm {
	bits := uint(1)
	for bits < 64 && uint64(1)<<bits < n { // 1<<64 is 0: stop there
		bits++
	}
	bits += bits & 1
	p := perm{n: n, half: bits / 2, mask: 1<<(bits/2) - 1}
	for r := range p.keys {
		p.keys[r] = mix64(seed ^ uint64(r+1)*0x9e3779b97f4a7c15)
	}
	return p
}

// at returns the image of x, which must be in [0, n). Cycle walking
// stays in [0, n) because the network permutes the larger domain, and
// it ends because x's cycle returns to x, which is below n.
func (p perm) at(x uint64) uint64 {
	for {
		x = p.round(x)
		if x < p.n {
			return x
		}
	}
}

func (p perm) round(x uint64) uint64 {
	l, r := x>>p.half, x&p.mask
	for _, k := range p.keys {
		l, r = r, l^(mix64(r^k)&p.mask)
	}
	return l<<p.half | r
}

// mix64 is splitmix64's finaliser: a bijection of uint64 whose output
// bits each depend on every input bit.
func mix64(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
