package graph

import (
	"errors"
	"fmt"
)

// ErrBadGraph is returned for generator parameters that make no graph.
var ErrBadGraph = errors.New("graph: bad graph parameters")

// MaxScale is the largest SCALE: vertex ids travel as 32-bit numbers.
const MaxScale = 31

// The Graph500 initiator: a vertex pair falls in the top-left quadrant
// with probability A, top-right B, bottom-left C and bottom-right
// 1-A-B-C at every one of SCALE levels.
const (
	DefaultA          = 0.57
	DefaultB          = 0.19
	DefaultC          = 0.19
	DefaultEdgeFactor = 16
)

// Kronecker is a Graph500 Kronecker graph: 2^Scale vertices and
// EdgeFactor × 2^Scale undirected edges, each drawn independently from
// the initiator (A, B, C), then vertex labels permuted and the edge list
// shuffled, all determined by Seed.
//
// Edge(i) computes the i-th edge of the final list on its own, so ranks
// generate disjoint shares (Share) with no communication, and the union
// of the shares is the same list for any number of ranks.
type Kronecker struct {
	Scale      int
	EdgeFactor int
	A, B, C    float64
	Seed       uint64

	vperm, eperm perm
	ab, cNorm    float64 // A+B; C/(C+D)
	aNorm        float64 // A/(A+B)
}

// NewKronecker checks the parameters and prepares the permutations.
func NewKronecker(scale, edgeFactor int, a, b, c float64, seed uint64) (*Kronecker, error) {
	switch {
	case scale < 1 || scale > MaxScale:
		return nil, fmt.Errorf("%w: SCALE %d outside [1, %d]", ErrBadGraph, scale, MaxScale)
	case edgeFactor < 1 || edgeFactor > 1<<10:
		return nil, fmt.Errorf("%w: edgefactor %d outside [1, 1024]", ErrBadGraph, edgeFactor)
	case !(a > 0) || !(b >= 0) || !(c >= 0) || !(a+b+c < 1): // written so that NaN fails
		return nil, fmt.Errorf("%w: initiator A=%g B=%g C=%g needs A > 0, B, C >= 0, A+B+C < 1", ErrBadGraph, a, b, c)
	}
	k := &Kronecker{Scale: scale, EdgeFactor: edgeFactor, A: a, B: b, C: c, Seed: seed}
	k.vperm = newPerm(uint64(k.Vertices()), mix64(seed^0x76657274))
	k.eperm = newPerm(uint64(k.Edges()), mix64(seed^0x65646765))
	k.ab = a + b
	k.aNorm = a / (a + b)
	k.cNorm = c / (1 - a - b)
	return k, nil
}

// Graph500 returns the benchmark's generator: edge factor 16 and
// initiator 0.57, 0.19, 0.19.
func Graph500(scale int, seed uint64) (*Kronecker, error) {
	return NewKronecker(scale, DefaultEdgeFactor, DefaultA, DefaultB, DefaultC, seed)
}

// Vertices returns 2^Scale.
func (k *Kronecker) Vertices() int64 { return 1 << k.Scale }

// Edges returns EdgeFactor × 2^Scale.
func (k *Kronecker) Edges() int64 { return int64(k.EdgeFactor) << k.Scale }

// Edge returns the i-th edge of the shuffled, relabelled list; i in
// [0, Edges()).
func (k *Kronecker) Edge(i int64) (u, v int64) {
	u, v = k.raw(int64(k.eperm.at(uint64(i))))
	return int64(k.vperm.at(uint64(u))), int64(k.vperm.at(uint64(v)))
}

// Share returns the positions [lo, hi) of the edge list that rank of
// ranks generates: contiguous, within one edge of equal.
func (k *Kronecker) Share(rank, ranks int) (lo, hi int64) {
	m := k.Edges()
	return m * int64(rank) / int64(ranks), m * int64(rank+1) / int64(ranks)
}

// raw draws sample j of the Kronecker product before relabelling: at
// each level one bit of each endpoint, the source's bit set with
// probability C+D and the target's with A's or C's share of its row, as
// in the Graph500 reference generator.
func (k *Kronecker) raw(j int64) (u, v int64) {
	s := mix64(k.Seed ^ mix64(uint64(j)+0x632be59bd9b4e019))
	for range k.Scale {
		var r1, r2 float64
		s, r1 = uniform(s)
		s, r2 = uniform(s)
		ib := r1 > k.ab
		thresh := k.aNorm
		if ib {
			thresh = k.cNorm
		}
		u, v = u<<1|b2i(ib), v<<1|b2i(r2 > thresh)
	}
	return u, v
}

// uniform advances a splitmix64 state and returns a float in [0, 1)
// with 53 random bits.
func uniform(s uint64) (uint64, float64) {
	s += 0x9e3779b97f4a7c15
	return s, float64(mix64(s)>>11) / (1 << 53)
}

func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}
