package graph

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
	"sync"

	"github.com/plexus-hpc/plexus/comm/collective"
)

// Mode chooses how the search moves from one level to the next.
type Mode int

const (
	// TopDown: every frontier vertex sends each neighbour a visit
	// (vertex, parent) to the neighbour's home, which takes the first.
	TopDown Mode = 1 + iota
	// Hybrid is Beamer's direction-optimising search: top-down while
	// the frontier is small, bottom-up (each unvisited vertex looks for
	// a parent in the frontier, shared as a bitmap) while it is large.
	Hybrid
)

// Beamer's switching thresholds: go bottom-up when the frontier's edges
// exceed the unvisited vertices' edges / alpha, back when the frontier
// holds fewer than the vertices / beta.
const (
	alpha = 14
	beta  = 24
)

// Levels counts what a search did.
type Levels struct {
	TopDown, BottomUp int
	// Seconds is each level's time on this rank, from the level's
	// sums to its next frontier, by DistConfig.Now.
	Seconds []float64
}

// BFS searches from root, leaving each local vertex's parent and level
// in Parent and Level. It is collective; every rank names the same
// root, and root must be a vertex.
func (d *Dist) BFS(ctx context.Context, root int64, mode Mode) (Levels, error) {
	if root < 0 || root >= d.n {
		return Levels{}, fmt.Errorf("%w: root %d of %d vertices", ErrBadGraph, root, d.n)
	}
	frontier, err := d.begin(ctx, root)
	if err != nil {
		return Levels{}, err
	}
	mu := int64(len(d.g.Nbr)) - d.degrees(frontier)
	bottomUp := false
	var lv Levels
	for depth := int32(0); ; depth++ {
		t0 := d.cfg.Now()
		mf := d.degrees(frontier)
		sums := []int64{int64(len(frontier)), mf, mu}
		if err := collectiveSum(ctx, d, sums); err != nil {
			return lv, err
		}
		if sums[0] == 0 {
			return lv, d.finish(ctx)
		}
		if mode == Hybrid {
			bottomUp = choose(bottomUp, sums[0], sums[1], sums[2], d.n)
		}
		if bottomUp {
			lv.BottomUp++
		} else {
			lv.TopDown++
		}
		if frontier, err = d.step(ctx, frontier, depth, bottomUp); err != nil {
			return lv, err
		}
		mu -= d.degrees(frontier)
		lv.Seconds = append(lv.Seconds, d.cfg.Now().Sub(t0).Seconds())
	}
}

// begin marks every local vertex unreached and the root reached, and
// returns the first frontier: the root at its home, else nothing.
func (d *Dist) begin(ctx context.Context, root int64) ([]uint32, error) {
	d.reset()
	if d.tk != nil {
		return d.tk.start(ctx, root)
	}
	if d.Home(root) == d.rank {
		return d.visit(nil, root-d.lo, root, 0), nil
	}
	return nil, nil
}

// step runs one level in the chosen direction with the Dist's
// implementation and returns the next frontier.
func (d *Dist) step(ctx context.Context, frontier []uint32, depth int32, bottomUp bool) ([]uint32, error) {
	switch {
	case bottomUp && d.tk != nil:
		return d.tk.bottomUp(ctx, frontier, depth)
	case bottomUp:
		return d.bottomUp(ctx, frontier, depth)
	case d.tk != nil:
		return d.tk.topDown(ctx, frontier, depth)
	}
	return d.topDown(ctx, frontier, depth)
}

// finish leaves the search's parents in Dist.parent: the Tasks
// implementation's are in the global parent array.
func (d *Dist) finish(ctx context.Context) error {
	if d.tk == nil {
		return nil
	}
	return d.tk.parents(ctx)
}

// collectiveSum replaces each rank's v with the sums over the ranks.
func collectiveSum(ctx context.Context, d *Dist, v []int64) error {
	if err := collective.AllreduceValues(ctx, d.c, v, v, func(a, b int64) int64 { return a + b }); err != nil {
		return fmt.Errorf("graph: level sums: %w", err)
	}
	return nil
}

// choose is Beamer's rule: whether the next level goes bottom-up, given
// the frontier's vertices nf and edges mf and the unvisited edges mu.
func choose(bottomUp bool, nf, mf, mu, n int64) bool {
	if !bottomUp {
		return mf > mu/alpha
	}
	return nf >= n/beta
}

func (d *Dist) reset() {
	n := d.hi - d.lo
	if d.parent == nil {
		d.parent, d.level = make([]int64, n), make([]int32, n)
	}
	for i := range d.parent {
		d.parent[i], d.level[i] = Unreached, -1
	}
}

func (d *Dist) visit(next []uint32, li, parent int64, level int32) []uint32 {
	d.parent[li], d.level[li] = parent, level
	return append(next, uint32(li))
}

func (d *Dist) degrees(frontier []uint32) int64 {
	var m int64
	for _, li := range frontier {
		m += d.g.Off[li+1] - d.g.Off[li]
	}
	return m
}

// topDown sends a visit for every edge out of the frontier to the
// target's home; a home applies the first visit of each vertex.
func (d *Dist) topDown(ctx context.Context, frontier []uint32, depth int32) ([]uint32, error) {
	var next []uint32
	s := d.newSender(d.idVisit, &d.visits)
	for _, li := range frontier {
		u := uint32(int64(li) + d.lo)
		for _, w := range d.g.Nbr[d.g.Off[li]:d.g.Off[li+1]] {
			if v := int64(w); v >= d.lo && v < d.hi {
				if d.parent[v-d.lo] == Unreached {
					next = d.visit(next, v-d.lo, int64(u), depth+1)
				}
				continue
			}
			s.send(ctx, d.Home(int64(w)), w, u)
		}
	}
	if err := s.close(ctx); err != nil {
		return nil, err
	}
	if err := d.deliver(ctx, &d.visits); err != nil {
		return nil, err
	}
	for _, b := range d.visits.take() {
		for i := 0; i < len(b); i += 2 {
			if li := int64(b[i]) - d.lo; d.parent[li] == Unreached {
				next = d.visit(next, li, int64(b[i+1]), depth+1)
			}
		}
	}
	return next, nil
}

// bottomUp shares the frontier as a bitmap of every vertex, then each
// unvisited local vertex takes its first neighbour in the frontier as
// its parent. It sends nothing but the bitmap.
func (d *Dist) bottomUp(ctx context.Context, frontier []uint32, depth int32) ([]uint32, error) {
	bits, err := d.shareBitmap(ctx, frontier)
	if err != nil {
		return nil, err
	}
	t := d.cfg.Threads
	parts := make([][]uint32, t)
	n := d.hi - d.lo
	var wg sync.WaitGroup
	for i := range t {
		wg.Go(func() {
			parts[i] = d.adopt(bits, n*int64(i)/int64(t), n*int64(i+1)/int64(t), depth)
		})
	}
	wg.Wait()
	return slices.Concat(parts...), nil
}

// adopt finds parents in the frontier for the unvisited local vertices
// [from, to); each goroutine writes only its own vertices.
func (d *Dist) adopt(bits []uint64, from, to int64, depth int32) []uint32 {
	var next []uint32
	for li := from; li < to; li++ {
		if d.parent[li] != Unreached {
			continue
		}
		for _, w := range d.g.Nbr[d.g.Off[li]:d.g.Off[li+1]] {
			if bits[w>>6]&(1<<(w&63)) != 0 {
				d.parent[li], d.level[li] = int64(w), depth+1
				next = append(next, uint32(li))
				break
			}
		}
	}
	return next
}

// shareBitmap gathers every rank's frontier into one bitmap of all the
// vertices (Chunk bits per rank).
func (d *Dist) shareBitmap(ctx context.Context, frontier []uint32) ([]uint64, error) {
	words := d.chunk / 64
	mine := make([]byte, 8*words)
	for _, li := range frontier {
		mine[li>>3] |= 1 << (li & 7)
	}
	all := make([]byte, int64(d.ranks)*8*words)
	if err := d.c.Allgather(ctx, mine, all); err != nil {
		return nil, fmt.Errorf("graph: frontier bitmap: %w", err)
	}
	bits := make([]uint64, len(all)/8)
	for i := range bits {
		bits[i] = binary.LittleEndian.Uint64(all[8*i:])
	}
	return bits, nil
}
