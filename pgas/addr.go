package pgas

import "fmt"

// DefaultBlock is the bytes of a block of the linear heap: consecutive
// blocks of a global array live on consecutive ranks.
const DefaultBlock = 64

// Addr is a 2D global address: a byte Offset in the heap of Rank.
type Addr struct {
	Rank   int
	Offset int64
}

// String returns the address as rank:offset.
func (a Addr) String() string { return fmt.Sprintf("%d:%d", a.Rank, a.Offset) }

// Layout is the block-cyclic striping of the linear heap over ranks:
// linear block b lives on rank b mod Ranks, as that rank's block
// b div Ranks. It is pure arithmetic; its methods divide by Block and
// Ranks, so on a Layout that Validate refuses (the zero Layout among
// them) they panic.
type Layout struct {
	Block int64 // bytes per block, > 0
	Ranks int   // number of ranks, > 0
}

// Validate reports what is wrong with l.
func (l Layout) Validate() error {
	if l.Block <= 0 || l.Ranks <= 0 {
		return fmt.Errorf("%w: block of %d bytes over %d ranks", ErrBadSize, l.Block, l.Ranks)
	}
	return nil
}

// Home returns where linear address lin (>= 0) lives.
func (l Layout) Home(lin int64) Addr {
	b := lin / l.Block
	return Addr{Rank: int(b % int64(l.Ranks)), Offset: b/int64(l.Ranks)*l.Block + lin%l.Block}
}

// Linear returns the linear address of a; it inverts Home.
func (l Layout) Linear(a Addr) int64 {
	b := a.Offset/l.Block*int64(l.Ranks) + int64(a.Rank)
	return b*l.Block + a.Offset%l.Block
}

// Span returns the per-rank bytes that a linear range [0, n) of whole
// blocks needs on every rank: the blocks of the rank holding the most.
func (l Layout) Span(n int64) int64 {
	blocks := (n + l.Block - 1) / l.Block
	return (blocks + int64(l.Ranks) - 1) / int64(l.Ranks) * l.Block
}
