package gasrank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
	"github.com/plexus-hpc/plexus/internal/cpuprof"
	"github.com/plexus-hpc/plexus/pgas"
)

// rank is this process's part of one run; only its goroutine uses it.
type rank struct {
	w    *comm.World
	c    *collective.Comm
	e    *am.Engine
	h    *pgas.Heap
	sink am.ID        // the am bench's handler: counts its messages
	got  atomic.Int64 // messages sink has run
	o    options
	out  io.Writer // where rank 0 prints its results
}

func run(ctx context.Context, o options, stdout io.Writer) error {
	w, err := comm.JoinWith(ctx, comm.Config{Transport: o.transport})
	if err != nil {
		return err
	}
	defer w.Close()
	r := &rank{w: w, o: o, out: stdout}
	if err := r.start(ctx); err != nil {
		return err
	}
	defer r.c.Close()
	if o.profile != "" {
		stop, err := cpuprof.Start(fmt.Sprintf("%s.%d", o.profile, w.Rank()))
		if err != nil {
			return err
		}
		defer stop()
	}
	err = r.bench(ctx)
	if err == nil {
		err = r.c.Barrier(ctx) // nobody closes while others send to it
	}
	if err == nil {
		err = r.e.Close(ctx)
	}
	return err
}

// start makes the collectives, the heap and the am engine.
func (r *rank) start(ctx context.Context) error {
	var err error
	if r.c, err = collective.New(ctx, r.w, collective.Config{}); err != nil {
		return err
	}
	var reg am.Registry
	r.sink, err = reg.Register("sink", func(context.Context, int, []byte) ([]byte, error) {
		r.got.Add(1)
		return nil, nil
	})
	if err != nil {
		return err
	}
	heap := max(int64(8)<<r.o.log/int64(r.w.Size()), 1<<20)
	heap = (heap + 63) / 64 * 64
	if r.h, err = pgas.New(&reg, pgas.Config{HeapBytes: heap + 1<<16}); err != nil {
		return err
	}
	cfg := am.Config{}
	if r.o.mode == "direct" {
		cfg.FlushBytes = 1
	}
	if r.e, err = am.New(ctx, r.w, &reg, cfg); err != nil {
		return err
	}
	return r.h.Bind(r.e)
}

func (r *rank) bench(ctx context.Context) error {
	if r.o.bench != "gups" && r.w.Size() < 2 {
		return fmt.Errorf("%w: %s needs 2 ranks, have %d", ErrUsage, r.o.bench, r.w.Size())
	}
	switch r.o.bench {
	case "am":
		return r.am(ctx)
	case "delegate_latency":
		return r.delegateLatency(ctx)
	case "gups":
		return r.gups(ctx)
	}
	return fmt.Errorf("%w: -bench %q", ErrUsage, r.o.bench) // parseFlags lets none through
}

// emit prints one result line from rank 0.
func (r *rank) emit(name string, size, iters int, value float64) error {
	if r.w.Rank() != 0 {
		return nil
	}
	b, err := json.Marshal(bench.PeerLine{Bench: name, Ranks: r.w.Size(), Size: size, Iters: iters, Value: value})
	if err == nil {
		_, err = fmt.Fprintf(r.out, "%s\n", b)
	}
	return err
}

var errHome = errors.New("gasrank: element 8 is not homed at rank 1")
