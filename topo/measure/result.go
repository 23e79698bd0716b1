package measure

import (
	"time"

	"github.com/plexus-hpc/plexus/topo"
)

// Result is what Pairwise measured. The matrices are indexed
// [sender][receiver] by position in CPUs, in nanoseconds, with the
// standard deviation of the kept samples in SD; the diagonal is 0.
type Result struct {
	// CPUs are the measured OS CPU numbers, sorted.
	CPUs []int
	// Send.Mean[i][j] is the time CPUs[i] is busy sending one message to
	// CPUs[j]: a batch of back-to-back sends divided by Config.Batch.
	Send *topo.Costs
	// Recv.Mean[i][j] is the time CPUs[j] is busy receiving one
	// already-queued message from CPUs[i]: a batch of receives divided by
	// Config.Batch.
	Recv *topo.Costs
	// RTT.Mean[i][j] is the round trip of one message from CPUs[i] to
	// CPUs[j] and back, as CPUs[i] sees it. The machine model has no place
	// for it; it is a sanity check (RTT > send + receive).
	RTT *topo.Costs
	// Latency.Mean[i][j] is the latency under load that Merge puts in
	// topo.Model.Latency: what half the loaded phase's median round trip
	// between CPUs[i] and CPUs[j] leaves after the two sends and receives
	// (see doc.go), never negative, symmetric; SD is half the round trips'
	// SD. nil when Config.SkipLoaded.
	Latency *topo.Costs
	// LoadedRTT.Mean[i][j] is the median round trip between CPUs[i] and
	// CPUs[j] in the loaded phase, every CPU busy; symmetric; nil when
	// Config.SkipLoaded.
	LoadedRTT *topo.Costs
	// Config is the configuration used, defaults filled in.
	Config Config
	// ClockNs is the median cost of one reading of the monotonic clock,
	// taken on each timed batch: each per-message sample includes
	// ClockNs / Batch of it (and each RTT sample all of it).
	ClockNs float64
	// Start is when the measurement began; Elapsed is how long it took,
	// LoadedElapsed the part of it the loaded phase took.
	Start         time.Time
	Elapsed       time.Duration
	LoadedElapsed time.Duration
}

// newResult allocates the matrices for n CPUs.
func newResult(cpus []int, cfg Config) *Result {
	n := len(cpus)
	return &Result{
		CPUs:   cpus,
		Send:   topo.NewCosts(n, true),
		Recv:   topo.NewCosts(n, true),
		RTT:    topo.NewCosts(n, true),
		Config: cfg,
	}
}

// samples are one ordered pair's raw per-message times in nanoseconds.
type samples struct {
	send, recv, rtt []float64
}

// add appends t's samples to s.
func (s *samples) add(t samples) {
	s.send = append(s.send, t.send...)
	s.recv = append(s.recv, t.recv...)
	s.rtt = append(s.rtt, t.rtt...)
}

// record summarizes one pair's samples into row i, column j.
func (r *Result) record(i, j int, s samples) {
	for _, m := range []struct {
		c *topo.Costs
		v []float64
	}{{r.Send, s.send}, {r.Recv, s.recv}, {r.RTT, s.rtt}} {
		m.c.Mean[i][j], m.c.SD[i][j] = Summarize(m.v, DropFrac)
	}
}
