package graph

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/plexus-hpc/plexus/comm/collective"
)

// ErrNoRoot is returned for a root given by hand that has no edge but
// self-loops, which Graph500 does not search from.
var ErrNoRoot = errors.New("graph: root has degree 0")

// BenchConfig is one Graph500 run: the graph, the searches and how.
type BenchConfig struct {
	Scale, EdgeFactor int
	Seed              uint64
	// NBFS is the most searches (64 in Graph500); fewer when fewer
	// vertices have an edge.
	NBFS int
	// Root, when >= 0, is the one vertex to search from, NBFS times.
	Root int64
	Mode Mode
	Dist DistConfig
	// Progress receives a line per phase and search; nil for none.
	Progress io.Writer
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Result is what every rank learns of a run.
type Result struct {
	Scale, EdgeFactor, Ranks int
	Roots                    []int64
	ConstructionS            float64
	Times, NEdges, TEPS      []float64
	Levels                   []Levels
	Validated                bool
}

// Run builds the graph of cfg over d's ranks, then searches from each
// key and validates every search. It is collective. A failed validation
// returns an error wrapping a *Violation that names the rule.
func Run(ctx context.Context, d *Dist, cfg BenchConfig) (*Result, error) {
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	k, err := NewKronecker(cfg.Scale, cfg.EdgeFactor, DefaultA, DefaultB, DefaultC, cfg.Seed)
	if err != nil {
		return nil, err
	}
	if k.Vertices() != d.n {
		return nil, fmt.Errorf("%w: a Dist of %d vertices for SCALE %d", ErrBadGraph, d.n, cfg.Scale)
	}
	res := &Result{Scale: cfg.Scale, EdgeFactor: cfg.EdgeFactor, Ranks: d.ranks}
	progress(cfg, "graph: generating and constructing %d vertices, %d edges on %d ranks", k.Vertices(), k.Edges(), d.ranks)
	t0 := cfg.Now()
	if err := d.Build(ctx, k); err != nil {
		return nil, err
	}
	if err := d.c.Barrier(ctx); err != nil {
		return nil, err
	}
	res.ConstructionS = cfg.Now().Sub(t0).Seconds()
	progress(cfg, "graph: constructed in %.3f s", res.ConstructionS)
	if res.Roots, err = d.roots(ctx, cfg); err != nil {
		return nil, err
	}
	for i, root := range res.Roots {
		if err := d.search(ctx, cfg, res, root); err != nil {
			return nil, err
		}
		progress(cfg, "graph: bfs %d/%d from %d: %.4f s, %d edges, %.3g TEPS, validated; levels %.4f",
			i+1, len(res.Roots), root, res.Times[i], int64(res.NEdges[i]), res.TEPS[i], res.Levels[i].Seconds)
	}
	res.Validated = true
	return res, nil
}

func progress(cfg BenchConfig, format string, args ...any) {
	if cfg.Progress != nil {
		fmt.Fprintf(cfg.Progress, format+"\n", args...)
	}
}

// search times one search from root, then validates it.
func (d *Dist) search(ctx context.Context, cfg BenchConfig, res *Result, root int64) error {
	if err := d.c.Barrier(ctx); err != nil {
		return err
	}
	t0 := cfg.Now()
	lv, err := d.BFS(ctx, root, cfg.Mode)
	if err != nil {
		return err
	}
	if err := d.c.Barrier(ctx); err != nil {
		return err
	}
	secs := []float64{cfg.Now().Sub(t0).Seconds()}
	if err := collective.AllreduceValues(ctx, d.c, secs, secs, func(a, b float64) float64 { return max(a, b) }); err != nil {
		return err
	}
	nedge, err := d.validate(ctx, root)
	if err != nil {
		return fmt.Errorf("graph: search from %d: %w", root, err)
	}
	res.Times = append(res.Times, secs[0])
	res.NEdges = append(res.NEdges, float64(nedge))
	res.TEPS = append(res.TEPS, float64(nedge)/secs[0])
	res.Levels = append(res.Levels, lv)
	return nil
}

// roots returns the search keys: cfg.Root if given (it must have an
// edge), else up to NBFS sampled ones.
func (d *Dist) roots(ctx context.Context, cfg BenchConfig) ([]int64, error) {
	bits, err := d.eligible(ctx)
	if err != nil {
		return nil, err
	}
	has := func(v int64) bool { return bits[v>>6]&(1<<(v&63)) != 0 }
	if cfg.Root >= 0 {
		if cfg.Root >= d.n || !has(cfg.Root) {
			return nil, fmt.Errorf("%w: vertex %d of %d has no edge but self-loops", ErrNoRoot, cfg.Root, d.n)
		}
		roots := make([]int64, cfg.NBFS)
		for i := range roots {
			roots[i] = cfg.Root
		}
		return roots, nil
	}
	roots := SearchKeys(d.n, has, cfg.NBFS, cfg.Seed)
	if len(roots) == 0 {
		return nil, fmt.Errorf("%w: no vertex of %d has an edge", ErrNoRoot, d.n)
	}
	return roots, nil
}

// eligible returns the bitmap of every vertex with an edge that is not
// a self-loop.
func (d *Dist) eligible(ctx context.Context) ([]uint64, error) {
	var local []uint32
	for v := d.lo; v < d.hi; v++ {
		for _, w := range d.g.Adj(v) {
			if int64(w) != v {
				local = append(local, uint32(v-d.lo))
				break
			}
		}
	}
	return d.shareBitmap(ctx, local)
}

// validate gathers the whole parent and level arrays, checks the five
// rules on this rank's vertices and agrees with the other ranks on the
// outcome; it returns the search's edge count for TEPS.
func (d *Dist) validate(ctx context.Context, root int64) (int64, error) {
	parent, level, err := d.gather(ctx)
	if err != nil {
		return 0, err
	}
	verr := Validate(parent, level, root, &d.g)
	loops, others := Traversed(parent, &d.g)
	sums := make([]int64, 2+int(RuleTreeEdges))
	sums[0], sums[1] = loops, others
	var v *Violation
	if errors.As(verr, &v) {
		sums[1+int(v.Rule)] = 1
	} else if verr != nil {
		return 0, verr
	}
	if err := collectiveSum(ctx, d, sums); err != nil {
		return 0, err
	}
	for r := RuleTree; r <= RuleTreeEdges; r++ {
		if sums[1+int(r)] == 0 {
			continue
		}
		if v != nil && v.Rule == r {
			return 0, v
		}
		return 0, &Violation{Rule: r, Vertex: -1, Detail: "found by another rank"}
	}
	return sums[0] + sums[1]/2, nil
}

// gather assembles every rank's parents and levels on every rank.
func (d *Dist) gather(ctx context.Context) ([]int64, []int32, error) {
	pb := make([]byte, 8*d.chunk)
	lb := make([]byte, 4*d.chunk)
	for i := range pb {
		pb[i] = 0xff // padding past the last vertex reads Unreached
	}
	for i := range d.parent {
		binary.LittleEndian.PutUint64(pb[8*i:], uint64(d.parent[i]))
		binary.LittleEndian.PutUint32(lb[4*i:], uint32(d.level[i]))
	}
	all := make([]byte, int64(d.ranks)*12*d.chunk)
	pall, lall := all[:int64(d.ranks)*8*d.chunk], all[int64(d.ranks)*8*d.chunk:]
	if err := d.c.Allgather(ctx, pb, pall); err != nil {
		return nil, nil, fmt.Errorf("graph: gather parents: %w", err)
	}
	if err := d.c.Allgather(ctx, lb, lall); err != nil {
		return nil, nil, fmt.Errorf("graph: gather levels: %w", err)
	}
	parent, level := make([]int64, d.n), make([]int32, d.n)
	for v := range d.n {
		parent[v] = int64(binary.LittleEndian.Uint64(pall[8*v:]))
		level[v] = int32(binary.LittleEndian.Uint32(lall[4*v:]))
	}
	return parent, level, nil
}
