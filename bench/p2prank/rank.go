package p2prank

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/comm"
)

// Tags keep the phases of a run apart, as the C programs' tags do.
const (
	tagPing = 1 + iota
	tagWindow
	tagAck
	tagReport
	tagDone
	tagHeat
	tagColl = 100     // plus the round of a collective
	tagMT   = 1 << 16 // plus 2 × the goroutine (see mt.go)
)

// rank is this process's part of one run; only its goroutine uses it.
type rank struct {
	w      *comm.World
	ctx    context.Context
	o      options
	heated bool      // the first case's warm-up has run for bench.HeatFor (heat.go)
	out    io.Writer // where rank 0 prints its results
	levels int       // the collectives' levels (collective.Comm.Levels) while coll runs
}

func (r *rank) bench() error {
	pointToPoint := r.o.bench != "coll"
	if pointToPoint && r.w.Size() < 2 {
		return fmt.Errorf("%w: %s needs 2 ranks, have %d", ErrUsage, r.o.bench, r.w.Size())
	}
	switch r.o.bench {
	case "latency":
		return r.latency()
	case "bw":
		return r.bandwidth()
	case "msgrate":
		return r.msgrate()
	case "coll":
		return r.coll()
	case "latency_mt":
		return r.latencyMT()
	case "msgrate_mt":
		return r.msgrateMT()
	}
	return fmt.Errorf("%w: -bench %q", ErrUsage, r.o.bench) // parseFlags lets none through
}

// emit prints one result line from rank 0.
func (r *rank) emit(name string, size, iters int, value float64) error {
	if r.w.Rank() != 0 {
		return nil
	}
	return r.print(bench.PeerLine{Bench: name, Ranks: r.w.Size(), Size: size, Iters: iters, Value: value, Serialized: r.w.Serialized(),
		Via: r.via(), Levels: r.levels})
}

// via names what carries this rank's messages to each rank.
func (r *rank) via() []string {
	v := make([]string, r.w.Size())
	for p := range v {
		v[p] = r.w.Transport(p)
	}
	return v
}

// emitMT prints one multi-goroutine result line from rank 0.
func (r *rank) emitMT(name string, g, iters int, value float64) error {
	if r.w.Rank() != 0 {
		return nil
	}
	return r.print(bench.PeerLine{Bench: name, Ranks: r.w.Size(), Size: bench.MTSize, Goroutines: g, Iters: iters, Value: value})
}

func (r *rank) print(l bench.PeerLine) error {
	b, err := json.Marshal(l)
	if err == nil {
		_, err = fmt.Fprintf(r.out, "%s\n", b)
	}
	return err
}

// finish keeps every rank alive until all have received everything: the
// others report to rank 0 and close (Close sends what is queued first);
// rank 0 closes once all have reported.
func (r *rank) finish() error {
	if r.w.Rank() != 0 {
		return r.w.Send(r.ctx, 0, tagDone, nil)
	}
	for p := 1; p < r.w.Size(); p++ {
		if _, err := r.w.Recv(r.ctx, p, tagDone, nil); err != nil {
			return err
		}
	}
	return nil
}
