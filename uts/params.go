package uts

import (
	"errors"
	"fmt"
	"math"
)

// ErrBadTree is returned for parameters that make no UTS tree.
var ErrBadTree = errors.New("uts: bad tree parameters")

// Type is UTS's tree type (-t).
type Type int

// The tree types, numbered as UTS's -t numbers them.
const (
	Binomial  Type = 0 // every node below the root has M children with probability Q, else none
	Geometric Type = 1 // children drawn from a geometric law whose mean follows Shape with depth
	Hybrid    Type = 2 // geometric down to ShiftDepth × Depth, binomial below
	Balanced  Type = 3 // B0 children down to Depth
)

// Shape is the geometric tree's expected branching by depth (-a).
type Shape int

// The shape functions, numbered as UTS's -a numbers them.
const (
	Linear Shape = 0 // b0 × (1 - d/Depth)
	ExpDec Shape = 1 // b0 × d^(-ln b0 / ln Depth)
	Cyclic Shape = 2 // b0^sin(2πd/Depth), none past 5 × Depth
	Fixed  Shape = 3 // b0 down to Depth
)

// MaxChildren is UTS's cap on the children of any node but a binomial
// root.
const MaxChildren = 100

// Params are UTS's parameters with its flag letters; the zero values of
// the fields past Type are not UTS's defaults (Default gives those).
type Params struct {
	Type       Type    // -t
	Shape      Shape   // -a
	Depth      int     // -d: gen_mx, the geometric tree's depth
	B0         float64 // -b: the root's branching factor
	Q          float64 // -q: a binomial node's probability of children
	M          int     // -m: a binomial node's children
	Seed       int     // -r: the root's seed
	ShiftDepth float64 // -f: the hybrid tree's switch, a fraction of Depth
}

// Default returns UTS's defaults: a geometric tree, linear shape, depth
// 6, b0 4, q 15/64, m 4, seed 0, shift 0.5.
func Default() Params {
	return Params{Type: Geometric, Shape: Linear, Depth: 6, B0: 4, Q: 15.0 / 64, M: 4, ShiftDepth: 0.5}
}

// T1 is UTS's sample tree T1 (-t 1 -a 3 -d 10 -b 4 -r 19): geometric,
// fixed shape, about 4.1 million nodes.
func T1() Params {
	p := Default()
	p.Shape, p.Depth, p.B0, p.Seed = Fixed, 10, 4, 19
	return p
}

// T3 is UTS's sample tree T3 (-t 0 -b 2000 -q 0.124875 -m 8 -r 42):
// binomial, about 4.1 million nodes, deep and narrow.
func T3() Params {
	p := Default()
	p.Type, p.B0, p.Q, p.M, p.Seed = Binomial, 2000, 0.124875, 8, 42
	return p
}

// Validate reports what is wrong with p.
func (p Params) Validate() error {
	switch {
	case p.Type < Binomial || p.Type > Balanced:
		return fmt.Errorf("%w: type %d (0 binomial, 1 geometric, 2 hybrid, 3 balanced)", ErrBadTree, p.Type)
	case p.Shape < Linear || p.Shape > Fixed:
		return fmt.Errorf("%w: shape %d (0 linear, 1 expdec, 2 cyclic, 3 fixed)", ErrBadTree, p.Shape)
	case p.Depth < 1 || p.B0 < 0 || math.IsNaN(p.B0) || p.B0 > 1e9:
		return fmt.Errorf("%w: depth %d, b0 %g", ErrBadTree, p.Depth, p.B0)
	case p.Q < 0 || p.Q > 1 || p.M < 0 || p.M > MaxChildren:
		return fmt.Errorf("%w: q %g must be in [0, 1], m %d in [0, %d]", ErrBadTree, p.Q, p.M, MaxChildren)
	case p.ShiftDepth < 0 || p.ShiftDepth > 1:
		return fmt.Errorf("%w: shift depth %g outside [0, 1]", ErrBadTree, p.ShiftDepth)
	}
	return nil
}

// String prints p as UTS's flags.
func (p Params) String() string {
	return fmt.Sprintf("-t %d -a %d -d %d -b %g -q %g -m %d -r %d -f %g",
		p.Type, p.Shape, p.Depth, p.B0, p.Q, p.M, p.Seed, p.ShiftDepth)
}
