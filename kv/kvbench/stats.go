package kvbench

import (
	"runtime"
	"slices"
	"time"

	"github.com/plexus-hpc/plexus/agree/group"
)

// runStats is what an agree run reads at its start and its end besides
// the response times: every replica's load and profile, and the heap's
// counters. The difference of two readings says where the run's time
// went: whose loop was busy, on what part of it, and how often the
// garbage collector stopped it.
type runStats struct {
	loads    []group.Load
	profiles []group.Profile
	numGC    uint32
	mallocs  uint64
}

// readStats reads rs's loads and profiles and the heap's counters (a
// runtime.ReadMemStats, which stops the world briefly).
func readStats(rs []*group.Replica) runStats {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	s := runStats{numGC: ms.NumGC, mallocs: ms.Mallocs}
	for _, r := range rs {
		s.loads = append(s.loads, r.Load())
		s.profiles = append(s.profiles, r.Profile())
	}
	return s
}

// fill sets row's per-decision numbers from the readings a (at the
// start) and b (at the end) of a run of ops decisions that took elapsed:
// the busy time of the first acceptor (replica 1), the leader (replica
// 0) and the busiest replica, the acceptor's and the leader's profiles,
// collections per second and allocations per decision.
func (a runStats) fill(row *Row, b runStats, ops int, elapsed time.Duration) {
	n := len(b.loads)
	if ops == 0 || n == 0 || len(a.loads) != n {
		return
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / float64(ops) }
	busy := func(i int) float64 { return per(b.loads[i].Sub(a.loads[i]).Busy) }
	row.AcceptorNs, row.LeaderNs = busy(1%n), busy(0)
	for i := range n {
		if ns := busy(i); ns > row.BusiestNs {
			row.BusiestNs, row.Busiest = ns, i
		}
	}
	acc, lead := b.profiles[1%n].Sub(a.profiles[1%n]), b.profiles[0].Sub(a.profiles[0])
	row.AcceptorParts, row.LeaderParts = parts(acc, ops), parts(lead, ops)
	row.AcceptorSweeps, row.LeaderSweeps = float64(acc.Sweeps)/float64(ops), float64(lead.Sweeps)/float64(ops)
	var sleeps int64
	for i := range n {
		sleeps += b.loads[i].Sub(a.loads[i]).Sleeps
	}
	row.SleepsPerS = float64(sleeps) / elapsed.Seconds()
	row.GCPerS = float64(b.numGC-a.numGC) / elapsed.Seconds()
	row.AllocsPerOp = float64(b.mallocs-a.mallocs) / float64(ops)
}

// parts returns a profile's parts in nanoseconds per decision, or nil
// for a replica that was not profiled.
func parts(p group.Profile, ops int) map[string]float64 {
	if p.Sweeps == 0 {
		return nil
	}
	m := map[string]float64{}
	for _, part := range p.Parts() {
		m[part.Name] = float64(part.Time.Nanoseconds()) / float64(ops)
	}
	return m
}

// medianParts returns the median of each part over the rows that have
// parts (the upper one of an even count), or nil if none has.
func medianParts(rows []Row, of func(Row) map[string]float64) map[string]float64 {
	var out map[string]float64
	for _, r := range rows {
		for name := range of(r) {
			if out == nil {
				out = map[string]float64{}
			}
			var xs []float64
			for _, q := range rows {
				if v, ok := of(q)[name]; ok {
					xs = append(xs, v)
				}
			}
			slices.Sort(xs)
			out[name] = xs[len(xs)/2]
		}
	}
	return out
}
