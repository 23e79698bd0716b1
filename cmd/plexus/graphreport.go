package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/graph"
)

// bfsReport is what rank 0 prints: the reference's statistics, with the
// JSON names of --json.
type bfsReport struct {
	Scale         int      `json:"scale"`
	EdgeFactor    int      `json:"edgefactor"`
	Ranks         int      `json:"ranks"`
	NBFS          int      `json:"nbfs"`
	Mode          string   `json:"mode"`
	Impl          string   `json:"impl"`
	Validated     bool     `json:"validated"`
	ConstructionS float64  `json:"construction_s"`
	HarmonicTEPS  float64  `json:"harmonic_mean_TEPS"`
	HarmonicSD    float64  `json:"harmonic_stddev_TEPS"`
	MedianTEPS    float64  `json:"median_TEPS"`
	Time          bfsStat  `json:"time"`
	NEdge         bfsStat  `json:"nedge"`
	TEPS          bfsStat  `json:"TEPS"`
	PeakRSS       []int64  `json:"peak_rss_bytes"`
	PerSearch     []bfsOne `json:"searches"`
}

type bfsStat struct {
	Min           float64 `json:"min"`
	FirstQuartile float64 `json:"firstquartile"`
	Median        float64 `json:"median"`
	ThirdQuartile float64 `json:"thirdquartile"`
	Max           float64 `json:"max"`
	Mean          float64 `json:"mean"`
	StdDev        float64 `json:"stddev"`
}

type bfsOne struct {
	Root     int64   `json:"root"`
	Time     float64 `json:"time_s"`
	NEdge    int64   `json:"nedge"`
	TEPS     float64 `json:"TEPS"`
	TopDown  int     `json:"topdown_levels"`
	BottomUp int     `json:"bottomup_levels"`
	// LevelSeconds is each level's time on rank 0.
	LevelSeconds []float64 `json:"level_seconds"`
}

func toStat(s graph.Stats) bfsStat {
	return bfsStat{s.Min, s.FirstQuartile, s.Median, s.ThirdQuartile, s.Max, s.Mean, s.StdDev}
}

func newBFSReport(res *graph.Result, mode string, rss []int64) bfsReport {
	teps := graph.Summarise(res.TEPS)
	r := bfsReport{Scale: res.Scale, EdgeFactor: res.EdgeFactor, Ranks: res.Ranks, NBFS: len(res.Roots),
		Mode: mode, Validated: res.Validated, ConstructionS: res.ConstructionS,
		HarmonicTEPS: teps.HarmonicMean, HarmonicSD: teps.HarmonicStdDev, MedianTEPS: teps.Median,
		Time: toStat(graph.Summarise(res.Times)), NEdge: toStat(graph.Summarise(res.NEdges)), TEPS: toStat(teps),
		PeakRSS: rss}
	for i, root := range res.Roots {
		r.PerSearch = append(r.PerSearch, bfsOne{root, res.Times[i], int64(res.NEdges[i]), res.TEPS[i],
			res.Levels[i].TopDown, res.Levels[i].BottomUp, res.Levels[i].Seconds})
	}
	return r
}

// write prints the lines of the Graph500 reference's output.
func (r bfsReport) write(w io.Writer) error {
	var b bytes.Buffer
	fmt.Fprintf(&b, "SCALE:                          %d\n", r.Scale)
	fmt.Fprintf(&b, "edgefactor:                     %d\n", r.EdgeFactor)
	fmt.Fprintf(&b, "NBFS:                           %d\n", r.NBFS)
	fmt.Fprintf(&b, "num_ranks:                      %d\n", r.Ranks)
	fmt.Fprintf(&b, "construction_time:              %.8g\n", r.ConstructionS)
	for _, s := range []struct {
		prefix, name string
		st           bfsStat
	}{{"bfs  ", "time", r.Time}, {"", "nedge", r.NEdge}, {"bfs  ", "TEPS", r.TEPS}} {
		for _, f := range []struct {
			k string
			v float64
		}{{"min", s.st.Min}, {"firstquartile", s.st.FirstQuartile}, {"median", s.st.Median},
			{"thirdquartile", s.st.ThirdQuartile}, {"max", s.st.Max}, {"mean", s.st.Mean}, {"stddev", s.st.StdDev}} {
			if s.name == "TEPS" && (f.k == "mean" || f.k == "stddev") {
				continue // the reference gives the harmonic forms for rates
			}
			fmt.Fprintf(&b, "%-32s%.8g\n", s.prefix+f.k+"_"+s.name+":", f.v)
		}
	}
	fmt.Fprintf(&b, "%-32s%.8g\n", "bfs  harmonic_mean_TEPS:", r.HarmonicTEPS)
	fmt.Fprintf(&b, "%-32s%.8g\n", "bfs  harmonic_stddev_TEPS:", r.HarmonicSD)
	fmt.Fprintf(&b, "%-32s%t\n", "validated:", r.Validated)
	for i, v := range r.PeakRSS {
		fmt.Fprintf(&b, "%-32s%d\n", fmt.Sprintf("peak_rss_bytes_rank_%d:", i), v)
	}
	_, err := w.Write(b.Bytes())
	return err
}

// gatherRSS returns every rank's peak resident memory (0 where unknown).
func gatherRSS(ctx context.Context, cc *collective.Comm) ([]int64, error) {
	mine := make([]byte, 8)
	binary.LittleEndian.PutUint64(mine, uint64(peakRSS()))
	all := make([]byte, 8*cc.Size())
	if err := cc.Allgather(ctx, mine, all); err != nil {
		return nil, err
	}
	rss := make([]int64, cc.Size())
	for i := range rss {
		rss[i] = int64(binary.LittleEndian.Uint64(all[8*i:]))
	}
	return rss, nil
}

// peakRSS reads VmHWM from /proc/self/status, in bytes; 0 if absent.
func peakRSS() int64 {
	return procField("/proc/self/status", "VmHWM:")
}

// procField returns a "Name: N kB" field of a /proc file in bytes.
func procField(path, name string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// bfsBytes estimates the job's memory: each directed list entry as 4
// bytes in the lists and 8 in flight while they are built, and per rank
// a dozen bytes a vertex of its own and three dozen of the gathered
// arrays that validation checks.
func bfsBytes(scale, edgeFactor, ranks int) int64 {
	n := int64(1) << scale
	m := int64(edgeFactor) * n
	return 2*m*12 + int64(ranks)*n*48
}

// fitsMemory refuses a graph whose estimate exceeds nine tenths of the
// memory available on this host (all ranks assumed here).
func fitsMemory(scale, edgeFactor, ranks int) error {
	need := bfsBytes(scale, edgeFactor, max(1, ranks))
	avail := procField("/proc/meminfo", "MemAvailable:")
	if avail > 0 && need > avail/10*9 {
		return fmt.Errorf("%w: SCALE %d edgefactor %d on %d ranks needs about %d MiB, this host has %d MiB available",
			errTooBig, scale, edgeFactor, ranks, need>>20, avail>>20)
	}
	return nil
}
