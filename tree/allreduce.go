package tree

import (
	"fmt"
	"math/bits"
	"strings"
)

// Algorithm is a way to run an allreduce over a group.
type Algorithm int

// The allreduce algorithms. Members are numbered by position in the
// group's ascending member list; p is the largest power of two not above
// the group's size n. Where n is not a power of two, members p..n-1 first
// fold their vectors into members 0..n-p-1 (member e into e-p) and last
// receive the result from them, so that the rounds between run on p
// members.
const (
	// AllreduceTrees reduces up the reduction tree and broadcasts the
	// result down the broadcast tree; a group of two exchanges its vectors
	// in one hop instead.
	AllreduceTrees Algorithm = 1 + iota
	// AllreduceDoubling is recursive doubling: in round k every member
	// exchanges its whole partial result with the member whose position
	// differs in bit k, log2(p) rounds.
	AllreduceDoubling
	// AllreduceRabenseifner is a reduce-scatter by recursive halving (the
	// exchanged half shrinks each round) followed by an allgather by
	// recursive doubling (the same rounds in reverse): 2·log2(p) rounds
	// that move about twice the vector per member in all, where
	// doubling moves log2(p) vectors.
	AllreduceRabenseifner
)

// Algorithms returns every allreduce algorithm in order, in a new slice.
func Algorithms() []Algorithm {
	return []Algorithm{AllreduceTrees, AllreduceDoubling, AllreduceRabenseifner}
}

// String returns the algorithm's CLI name.
func (a Algorithm) String() string {
	switch a {
	case AllreduceTrees:
		return "trees"
	case AllreduceDoubling:
		return "doubling"
	case AllreduceRabenseifner:
		return "rabenseifner"
	}
	return fmt.Sprintf("Algorithm(%d)", int(a))
}

// ParseAlgorithm parses "trees", "doubling" or "rabenseifner".
func ParseAlgorithm(s string) (Algorithm, error) {
	for _, a := range Algorithms() {
		if strings.EqualFold(s, a.String()) {
			return a, nil
		}
	}
	return 0, fmt.Errorf("tree: unknown allreduce algorithm %q (want trees, doubling or rabenseifner)", s)
}

// Valid reports whether a is one of the algorithms.
func (a Algorithm) Valid() bool { return a >= AllreduceTrees && a <= AllreduceRabenseifner }

// MarshalText encodes the algorithm by name.
func (a Algorithm) MarshalText() ([]byte, error) {
	if !a.Valid() {
		return nil, fmt.Errorf("tree: cannot encode allreduce algorithm %d", int(a))
	}
	return []byte(a.String()), nil
}

// UnmarshalText decodes a name written by MarshalText.
func (a *Algorithm) UnmarshalText(b []byte) error {
	v, err := ParseAlgorithm(string(b))
	if err == nil {
		*a = v
	}
	return err
}

// AllreducePlan says which algorithm an allreduce of a given length uses.
// Its zero value uses AllreduceTrees for every length.
//
// Every member of a group must run an allreduce with the same algorithm,
// so a plan is made once (by PlanAllreduce, at one place) and handed to
// every member, as the trees are.
type AllreducePlan struct {
	// ByClass[k] is the algorithm for vectors of length class k, where
	// the class of n bytes is bits.Len(n): class 0 is the empty vector,
	// class k ≥ 1 lengths 2^(k-1) to 2^k - 1. Lengths past the last class
	// use the last entry.
	ByClass []Algorithm `json:"by_class"`
}

// FixedAllreduce returns the plan that uses a for every length.
func FixedAllreduce(a Algorithm) AllreducePlan { return AllreducePlan{ByClass: []Algorithm{a}} }

// For returns the algorithm for a vector of n bytes.
func (p AllreducePlan) For(n int) Algorithm {
	if len(p.ByClass) == 0 {
		return AllreduceTrees
	}
	return p.ByClass[min(sizeClass(n), len(p.ByClass)-1)]
}

// Validate reports an entry that is not an algorithm.
func (p AllreducePlan) Validate() error {
	for k, a := range p.ByClass {
		if !a.Valid() {
			return fmt.Errorf("tree: allreduce plan class %d has invalid algorithm %d", k, int(a))
		}
	}
	return nil
}

// String lists the plan's changes of algorithm, such as
// "trees, doubling from 64 B".
func (p AllreducePlan) String() string {
	if len(p.ByClass) == 0 {
		return AllreduceTrees.String()
	}
	var b strings.Builder
	b.WriteString(p.ByClass[0].String())
	for k := 1; k < len(p.ByClass); k++ {
		if p.ByClass[k] != p.ByClass[k-1] {
			fmt.Fprintf(&b, ", %v from %d B", p.ByClass[k], classLow(k))
		}
	}
	return b.String()
}

// sizeClass is the length class of n bytes (see AllreducePlan.ByClass).
func sizeClass(n int) int { return bits.Len(uint(max(n, 0))) }

// classLow is the shortest length of class k.
func classLow(k int) int {
	if k == 0 {
		return 0
	}
	return 1 << (k - 1)
}
