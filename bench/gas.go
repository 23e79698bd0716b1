package bench

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"time"

	"github.com/plexus-hpc/plexus/launch"
)

// GasConfig says what Gas runs.
type GasConfig struct {
	// Transport carries Plexus's ranks: tcp (loopback) or shm.
	Transport string
	// Quick runs few operations once, and gups on 2^20 elements: a smoke
	// test.
	Quick bool
	// Runs repeats every case; the median is reported. Default 3, 1 with
	// Quick.
	Runs int
	// GUPSRanks lists the job sizes of the gups case (default 1 and 2).
	GUPSRanks []int
	// Rank is the command line that runs one Plexus rank (package
	// gasrank): a program and its leading arguments, to which each case's
	// options are added; plexus bench gas passes its own binary and
	// "bench gas rank". Empty: bench/gasprog is built from Src with the
	// Go toolchain.
	Rank []string
	// Src is the plexus module's directory, where bench/gasprog is built
	// from when there is no Rank (default: found with go list). The Open
	// MPI programs are compiled from sources carried in the binary.
	Src string
	// Log receives progress and notes such as a missing Open MPI.
	Log io.Writer
	// Timeout bounds each job. Default 5 minutes.
	Timeout time.Duration
}

// maxGUPSRanks bounds a gups job: one host's ranks, each a process.
const maxGUPSRanks = 1024

// ErrGasConfig reports a GasConfig that cannot run.
var ErrGasConfig = errors.New("bench: bad gas config")

// Validate says whether c can run.
func (c GasConfig) Validate() error {
	if c.Transport != "tcp" && c.Transport != "shm" { // the gas ranks run on one host
		return fmt.Errorf("%w: transport %q; have tcp and shm", ErrGasConfig, c.Transport)
	}
	if c.Runs < 0 {
		return fmt.Errorf("%w: %d runs, want 0 (the default) or more", ErrGasConfig, c.Runs)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("%w: timeout %v, want 0 (the default) or more", ErrGasConfig, c.Timeout)
	}
	for _, n := range c.GUPSRanks {
		if n < 1 || n > maxGUPSRanks {
			return fmt.Errorf("%w: gups at %d ranks; want 1 to %d", ErrGasConfig, n, maxGUPSRanks)
		}
	}
	return nil
}

func (c GasConfig) withDefaults() GasConfig {
	if c.Runs == 0 {
		c.Runs = 3
		if c.Quick {
			c.Runs = 1
		}
	}
	if c.Timeout == 0 {
		c.Timeout = 5 * time.Minute
	}
	if len(c.GUPSRanks) == 0 {
		c.GUPSRanks = []int{1, 2}
	}
	if c.Log == nil {
		c.Log = io.Discard
	}
	return c
}

// gasCase is one job of Gas: impl names the row, prog the Open MPI peer
// (empty: the rank program).
type gasCase struct {
	impl, prog string
	ranks      int
	args       []string
}

// gasPlan lists the jobs of one run. n scales the operation counts.
func gasPlan(c GasConfig, peers bool) []gasCase {
	am, lat, gups, log := 1_000_000, 20_000, 2_000_000, 24
	if c.Quick {
		am, lat, gups, log = 50_000, 2_000, 100_000, 20
	}
	direct := am / 4 // a direct Post costs a comm message
	plan := []gasCase{
		{"aggregated", "", 2, []string{"-bench", "am", "-n", strconv.Itoa(am)}},
		{"direct", "", 2, []string{"-bench", "am", "-mode", "direct", "-n", strconv.Itoa(direct)}},
	}
	if peers {
		plan = append(plan, gasCase{"openmpi", "am", 2, []string{"-n", strconv.Itoa(am / 64)}})
	}
	plan = append(plan, gasCase{"plexus", "", 2, []string{"-bench", "delegate_latency", "-n", strconv.Itoa(lat)}})
	for _, ranks := range c.GUPSRanks {
		n := strconv.Itoa(gups / ranks)
		plan = append(plan, gasCase{"plexus", "", ranks, []string{"-bench", "gups", "-n", n, "-log", strconv.Itoa(log)}})
		if peers {
			plan = append(plan, gasCase{"openmpi", "gups", ranks, []string{"-n", n, "-s", strconv.Itoa(log)}})
		}
	}
	return plan
}

// Gas runs the am, delegate_latency and gups cases of "plexus bench gas"
// cfg.Runs times, reporting medians: Plexus's with the rank program
// (cfg.Rank, or bench/gasprog built from source) and, when mpicc and
// mpirun are here, Open MPI's with bench/peers' am.c and gups.c compiled
// from the sources carried in the binary; else every result's Note says
// why Open MPI did not run. Open MPI's programs run on shared memory (the
// vader BTL) whatever cfg.Transport.
func Gas(ctx context.Context, cfg GasConfig) ([]GasResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	dir, err := os.MkdirTemp("", "plexus-gas-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	jobs, err := startGas(ctx, &cfg, dir)
	if err != nil {
		return nil, err
	}
	var all []P2PResult
	for run := 1; run <= cfg.Runs; run++ {
		for _, gc := range gasPlan(cfg, jobs.note == "") {
			fmt.Fprintf(cfg.Log, "bench gas: run %d/%d: %s %s, %d ranks\n", run, cfg.Runs, gc.impl, gc.args, gc.ranks)
			res, err := runGasCase(ctx, cfg, jobs, gc)
			if err != nil {
				return nil, err
			}
			all = append(all, res...)
		}
	}
	return gasResults(medians(all), jobs.note), nil
}

// gasJobs is what Gas's cases run: the rank program, and the peers
// compiled into dir unless note says why not.
type gasJobs struct {
	rank []string
	dir  string
	note string
}

// startGas readies the rank program and the peers in dir.
func startGas(ctx context.Context, cfg *GasConfig, dir string) (gasJobs, error) {
	rank, err := rankCommand(ctx, cfg.Rank, &cfg.Src, "./bench/gasprog", dir, false)
	if err != nil {
		return gasJobs{}, err
	}
	jobs := gasJobs{rank: rank, dir: dir}
	err = buildPeers(ctx, dir, []string{"am", "gups"})
	if errors.Is(err, errSkipped) {
		fmt.Fprintf(cfg.Log, "bench gas: Open MPI %v; Plexus only\n", err)
		jobs.note, err = skipNote(err), nil
	}
	return jobs, err
}

// runGasCase runs one job and names its results.
func runGasCase(ctx context.Context, cfg GasConfig, jobs gasJobs, gc gasCase) ([]P2PResult, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	var out bytes.Buffer
	var err error
	transport := cfg.Transport
	if gc.prog == "" {
		args := append(append(slices.Clip(jobs.rank[1:]), "-transport", cfg.Transport), gc.args...)
		job := launch.Job{N: gc.ranks, Prog: jobs.rank[0], Args: args, Timeout: cfg.Timeout, Stdout: &out, Stderr: cfg.Log}
		err = job.Run(ctx)
	} else {
		transport = "shm"
		args := append([]string{"--allow-run-as-root", "--oversubscribe", "-n", strconv.Itoa(gc.ranks)}, transports[transport].mpirun...)
		cmd := exec.CommandContext(ctx, "mpirun", append(append(args, filepath.Join(jobs.dir, gc.prog)), gc.args...)...)
		cmd.Stdout, cmd.Stderr = &out, cfg.Log
		err = cmd.Run()
	}
	if err != nil {
		return nil, fmt.Errorf("%s %s, %d ranks: %w", gc.impl, cmp.Or(gc.prog, "rank"), gc.ranks, err)
	}
	lines, err := ParsePeerOutput(&out)
	if err != nil {
		return nil, err
	}
	return toResults(lines, gc.impl, transport), nil
}
