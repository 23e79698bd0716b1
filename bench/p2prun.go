package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
)

// P2PResult is one case of P2P: the median over the runs.
type P2PResult struct {
	Bench      string  `json:"bench"` // latency, bandwidth, msgrate, barrier, bcast, allreduce, latency_mt or msgrate_mt
	Impl       string  `json:"impl"`  // plexus or openmpi
	Transport  string  `json:"transport"`
	Ranks      int     `json:"ranks"`
	Size       int     `json:"size"` // message bytes; 0 for barrier
	Value      float64 `json:"value"`
	Unit       string  `json:"unit"`  // µs (one-way or per op), MB/s (10^6 bytes) or msgs/s
	Iters      int     `json:"iters"` // timed iterations per run (per goroutine pair in the _mt cases)
	Runs       int     `json:"runs"`
	Goroutines int     `json:"goroutines"` // goroutine pairs of the _mt cases; 1 for the others
	// Serialized says that Plexus ran the case on serialized worlds
	// (comm.Config.Serialized; P2PConfig.Multiple).
	Serialized bool `json:"serialized"`
	// PGO says that the Plexus program was built with a profile
	// (P2PConfig.NoPGO).
	PGO bool `json:"pgo"`
	// Hosts are the hosts the case's ranks ran on (P2PConfig.Hosts);
	// empty: this host.
	Hosts []string `json:"hosts,omitempty"`
	// Via names what carried Plexus's rank 0's messages to each rank of
	// the case, in rank order: self, shm or tcp (P2PConfig.Transport,
	// and with auto which ranks share a host).
	Via []string `json:"via,omitempty"`
	// Levels is 2 where Plexus ran the collective in two levels across
	// hosts (P2PConfig.Hierarchy, where it applies), 1 where on trees or
	// flat, 0 for point-to-point cases and Open MPI.
	Levels int `json:"levels,omitempty"`
	// Note says why Open MPI did not run when it was asked for
	// (P2PConfig.Peers without mpicc or mpirun); empty otherwise.
	Note string `json:"note,omitempty"`
	// Paired is the median over the runs of each run's ratio
	// plexus/openmpi for the case, on both implementations' results; 0
	// when one side did not measure it. A run measures the two one after
	// the other, so each ratio compares them in the same state of the
	// machine, where the ratio of the two medians may take them from
	// different states (pairedRatios).
	Paired float64 `json:"paired_ratio,omitempty"`
}

// P2P runs every case of cfg with Plexus (the rank program, cfg.Rank or
// one built from source) and, with cfg.Peers, Open MPI (the programs of
// bench/peers, compiled with mpicc), alternating between them so both see
// the same machine. A missing Open MPI is reported on cfg.Log and in every
// result's Note, and leaves Plexus's results.
func P2P(ctx context.Context, cfg P2PConfig) ([]P2PResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	dir, err := os.MkdirTemp("", "plexus-p2p-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	impls, note, err := startImpls(ctx, &cfg, dir)
	if err != nil {
		return nil, err
	}
	res, err := runAll(ctx, cfg, impls)
	for i := range res {
		res[i].Note = note
	}
	return res, err
}

// startImpls readies what cfg needs in dir, and returns the note on a
// missing Open MPI.
func startImpls(ctx context.Context, cfg *P2PConfig, dir string) ([]impl, string, error) {
	rank, err := rankCommand(ctx, cfg.Rank, &cfg.Src, "./bench/p2pprog", dir, cfg.NoPGO)
	if err != nil {
		return nil, "", err
	}
	impls := []impl{&plexusImpl{cmd: rank, pgo: builtWithPGO(rank[0]), transport: cfg.Transport, cfg: *cfg}}
	if !cfg.Peers {
		return impls, "", nil
	}
	err = buildPeers(ctx, dir, mpiProgs(*cfg))
	if errors.Is(err, errSkipped) {
		fmt.Fprintf(cfg.Log, "bench p2p: Open MPI %v; Plexus only\n", err)
		return impls, skipNote(err), nil
	}
	if err != nil {
		return nil, "", err
	}
	m := &mpiImpl{dir: dir, tr: transports[cfg.Transport], cfg: *cfg}
	if len(cfg.Hosts) > 0 {
		m.kernels, err = probeKernels(ctx, m.ssh(), cfg.Hosts)
		if slices.ContainsFunc(peerPlan(*cfg), func(r peerRun) bool { return crowdedOn(spread(r.ranks, cfg.Hosts), m.kernels) }) {
			fmt.Fprintln(cfg.Log, "bench p2p: hosts share a kernel with fewer CPUs than ranks: Open MPI yields when idle (mpi_yield_when_idle) there")
		}
	}
	return append(impls, m), "", err
}

// runAll runs the plan cfg.Runs times and reduces to medians.
func runAll(ctx context.Context, cfg P2PConfig, impls []impl) ([]P2PResult, error) {
	var all []P2PResult
	for run := 1; run <= cfg.Runs; run++ {
		for _, r := range peerPlan(cfg) {
			for _, im := range impls {
				if r.plexusOnly && im.name() != "plexus" {
					continue
				}
				fmt.Fprintf(cfg.Log, "bench p2p: run %d/%d: %s %s, %d ranks%s\n", run, cfg.Runs, im.name(), r.prog, r.ranks, onHosts(r.ranks, cfg.Hosts))
				lines, err := im.run(ctx, r)
				if err != nil {
					return nil, err
				}
				res := toResults(lines, im.name(), cfg.Transport)
				p, ok := im.(*plexusImpl)
				for i := range res {
					res[i].PGO = ok && p.pgo
					res[i].Hosts = distinctHosts(spread(r.ranks, cfg.Hosts))
				}
				all = append(all, res...)
			}
		}
	}
	out := medians(all)
	paired := pairedRatios(all)
	for i, r := range out {
		out[i].Paired = paired[caseOf(r)]
	}
	return out, nil
}

func toResults(lines []PeerLine, impl, transport string) []P2PResult {
	res := make([]P2PResult, len(lines))
	for i, l := range lines {
		res[i] = P2PResult{Bench: l.Bench, Impl: impl, Transport: transport, Ranks: l.Ranks,
			Size: l.Size, Value: l.Value, Unit: Unit(l.Bench), Iters: l.Iters, Runs: 1, Goroutines: max(l.Goroutines, 1),
			Serialized: l.Serialized, Via: l.Via, Levels: l.Levels}
	}
	return res
}

// medians merges results of the same case into one holding the median
// value (the lower middle one for an even count), in first-seen order.
func medians(all []P2PResult) []P2PResult {
	type key struct {
		c    caseKey
		impl string
	}
	groups := map[key][]float64{}
	var out []P2PResult
	for _, r := range all {
		k := key{caseOf(r), r.Impl}
		if groups[k] == nil {
			out = append(out, r)
		}
		groups[k] = append(groups[k], r.Value)
	}
	for i, r := range out {
		v := groups[key{caseOf(r), r.Impl}]
		out[i].Value, out[i].Runs = median(v), len(v)
	}
	return out
}

// caseKey names a case: what both implementations measure.
type caseKey struct {
	bench           string
	ranks, size, gs int
}

func caseOf(r P2PResult) caseKey { return caseKey{r.Bench, r.Ranks, r.Size, r.Goroutines} }

// pairedRatios returns, per case both implementations measured, the
// median over runs of plexus/openmpi within each run. all holds the runs
// in order, so a case's k-th Plexus result and k-th Open MPI result come
// from run k.
func pairedRatios(all []P2PResult) map[caseKey]float64 {
	values := map[caseKey]map[string][]float64{}
	for _, r := range all {
		k := caseOf(r)
		if values[k] == nil {
			values[k] = map[string][]float64{}
		}
		values[k][r.Impl] = append(values[k][r.Impl], r.Value)
	}
	out := map[caseKey]float64{}
	for k, v := range values {
		p, o := v["plexus"], v["openmpi"]
		var ratios []float64
		for i := range min(len(p), len(o)) {
			if o[i] > 0 {
				ratios = append(ratios, p[i]/o[i])
			}
		}
		if len(ratios) > 0 {
			out[k] = median(ratios)
		}
	}
	return out
}

// median is the middle of v (the lower middle one for an even count); it
// sorts v.
func median(v []float64) float64 {
	slices.Sort(v)
	return v[(len(v)-1)/2]
}
