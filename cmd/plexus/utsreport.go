package main

import (
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/internal/cpuprof"
	"github.com/plexus-hpc/plexus/uts"
)

// utsReport is what rank 0 prints.
type utsReport struct {
	Tree        string    `json:"tree"`
	Nodes       int64     `json:"nodes"`
	Leaves      int64     `json:"leaves"`
	Depth       int       `json:"depth"`
	Ranks       int       `json:"ranks"`
	BuildS      float64   `json:"build_s"`
	TraverseS   float64   `json:"traverse_s"`
	NodesPerS   float64   `json:"nodes_per_s"`
	Stored      []int64   `json:"stored_per_rank"`
	Visited     []int64   `json:"visited_per_rank"`
	PeakRSS     []int64   `json:"peak_rss_bytes"`
	TraverseAll []float64 `json:"traverse_runs_s"`
}

func utsRank(ctx context.Context, c *cli, o *utsOpts, w *comm.World, cc *collective.Comm) error {
	m, err := uts.NewMem(ctx, w, cc, o.p, o.cfg)
	if err != nil {
		return err
	}
	rep, err := utsMeasure(ctx, o, m, cc)
	if err != nil {
		m.Close(ctx)
		return err
	}
	if err := m.Close(ctx); err != nil {
		return err
	}
	if w.Rank() != 0 {
		return nil
	}
	rep.Tree, rep.Ranks = o.p.String(), w.Size()
	if o.svg != "" {
		if err := writeUTSSVG(c.stderr, o.svg, rep); err != nil {
			return err
		}
	}
	if o.json {
		return writeJSON(c.stdout, rep)
	}
	return rep.write(c.stdout)
}

// utsMeasure builds the tree once and traverses it o.runs times, each
// phase between barriers.
func utsMeasure(ctx context.Context, o *utsOpts, m *uts.Mem, cc *collective.Comm) (utsReport, error) {
	var rep utsReport
	var err error
	if rep.BuildS, err = timed(ctx, cc, func() error { return m.Build(ctx) }); err != nil {
		return rep, err
	}
	var counts uts.Counts
	if o.cpuprofile != "" {
		stop, err := startCPUProfile(fmt.Sprintf("%s.%d", o.cpuprofile, cc.Rank()))
		if err != nil {
			return rep, err
		}
		defer stop()
	}
	for range o.runs {
		s, err := timed(ctx, cc, func() (err error) { counts, err = m.Traverse(ctx); return err })
		if err != nil {
			return rep, err
		}
		rep.TraverseAll = append(rep.TraverseAll, s)
	}
	sorted := slices.Sorted(slices.Values(rep.TraverseAll))
	rep.TraverseS = sorted[len(sorted)/2]
	rep.Nodes, rep.Leaves, rep.Depth = counts.Nodes, counts.Leaves, counts.Depth
	rep.NodesPerS = float64(counts.Nodes) / rep.TraverseS
	if rep.Stored, err = gatherInt(ctx, cc, m.Stored()); err != nil {
		return rep, err
	}
	if rep.Visited, err = gatherInt(ctx, cc, m.Visited()); err != nil {
		return rep, err
	}
	rep.PeakRSS, err = gatherRSS(ctx, cc)
	return rep, err
}

// timed runs f between barriers and returns its slowest rank's seconds.
func timed(ctx context.Context, cc *collective.Comm, f func() error) (float64, error) {
	if err := cc.Barrier(ctx); err != nil {
		return 0, err
	}
	t0 := time.Now()
	if err := f(); err != nil {
		return 0, err
	}
	s := []float64{time.Since(t0).Seconds()}
	err := collective.AllreduceValues(ctx, cc, s, s, func(a, b float64) float64 { return max(a, b) })
	return s[0], err
}

// gatherInt returns every rank's v.
func gatherInt(ctx context.Context, cc *collective.Comm, v int64) ([]int64, error) {
	mine := binary.LittleEndian.AppendUint64(nil, uint64(v))
	all := make([]byte, 8*cc.Size())
	if err := cc.Allgather(ctx, mine, all); err != nil {
		return nil, err
	}
	out := make([]int64, cc.Size())
	for i := range out {
		out[i] = int64(binary.LittleEndian.Uint64(all[8*i:]))
	}
	return out, nil
}

func (r utsReport) write(w io.Writer) error {
	_, err := fmt.Fprintf(w, "tree:        %s\nranks:       %d\nnodes:       %d\nleaves:      %d\ndepth:       %d\n"+
		"build_s:     %.4f\ntraverse_s:  %.4f\nnodes_per_s: %.4g\nstored:      %v\nvisited:     %v\npeak_rss:    %v\n",
		r.Tree, r.Ranks, r.Nodes, r.Leaves, r.Depth, r.BuildS, r.TraverseS, r.NodesPerS, r.Stored, r.Visited, r.PeakRSS)
	return err
}

// startCPUProfile profiles this process into file until the returned
// function runs: the traversals only, not the build.
func startCPUProfile(file string) (func(), error) {
	stop, err := cpuprof.Start(file)
	if err != nil {
		return nil, fmt.Errorf("uts: --cpuprofile: %w", err)
	}
	return stop, nil
}
