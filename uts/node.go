package uts

import (
	"crypto/sha1"
	"encoding/binary"
	"math"
)

// State is a node's random state: UTS's SHA-1 splittable stream, the
// 20-byte digest from which the node's children's states are hashed.
type State [sha1.Size]byte

// Node is a tree node: its depth and its state.
type Node struct {
	Height int32
	State  State
}

// Root returns the root of p's tree: height 0, state SHA-1 of sixteen
// zero bytes and the seed's four big-endian bytes, as UTS's rng_init.
func Root(p Params) Node {
	var b [20]byte
	binary.BigEndian.PutUint32(b[16:], uint32(p.Seed))
	return Node{State: sha1.Sum(b[:])}
}

// Child returns child i of n: state SHA-1 of n's state and i's four
// big-endian bytes, as UTS's rng_spawn.
func (n Node) Child(i int) Node {
	var b [24]byte
	copy(b[:], n.State[:])
	binary.BigEndian.PutUint32(b[20:], uint32(i))
	return Node{Height: n.Height + 1, State: sha1.Sum(b[:])}
}

// rand is UTS's rng_rand: the state's last four bytes, big-endian, as
// a non-negative 31-bit number.
func (s *State) rand() int32 {
	return int32(binary.BigEndian.Uint32(s[16:]) & 0x7fffffff)
}

// prob is UTS's rng_toProb: the number as a fraction of 2^31.
func prob(r int32) float64 { return float64(r) / 2147483648.0 }

// NumChildren returns how many children n has in p's tree, as UTS's
// uts_numChildren computes it.
func (p Params) NumChildren(n Node) int {
	var c int
	switch {
	case p.Type == Binomial && n.Height == 0:
		c = int(math.Floor(p.B0))
	case p.Type == Binomial:
		c = p.binomial(n)
	case p.Type == Geometric:
		c = p.geometric(n)
	case p.Type == Hybrid && float64(n.Height) < p.ShiftDepth*float64(p.Depth):
		c = p.geometric(n)
	case p.Type == Hybrid:
		c = p.binomial(n)
	case p.Type == Balanced && int(n.Height) < p.Depth:
		c = int(p.B0)
	}
	switch {
	case n.Height == 0 && p.Type == Binomial:
		c = min(c, int(math.Ceil(p.B0)))
	case p.Type != Balanced:
		c = min(c, MaxChildren)
	}
	return c
}

func (p Params) binomial(n Node) int {
	if prob(n.State.rand()) < p.Q {
		return p.M
	}
	return 0
}

// geometric draws from the geometric law whose mean is the shape
// function's b_i at n's depth, by inverting its distribution function.
func (p Params) geometric(n Node) int {
	b := p.branching(int(n.Height))
	q := 1.0 / (1.0 + b)
	u := prob(n.State.rand())
	return int(math.Floor(math.Log(1-u) / math.Log(1-q)))
}

// branching is the shape function: the expected children at depth d.
func (p Params) branching(d int) float64 {
	if d == 0 {
		return p.B0
	}
	gm := float64(p.Depth)
	switch p.Shape {
	case ExpDec:
		return p.B0 * math.Pow(float64(d), -math.Log(p.B0)/math.Log(gm))
	case Cyclic:
		if float64(d) > 5*gm {
			return 0
		}
		return math.Pow(p.B0, math.Sin(2*math.Pi*float64(d)/gm))
	case Fixed:
		if d < p.Depth {
			return p.B0
		}
		return 0
	}
	return p.B0 * (1 - float64(d)/gm)
}
