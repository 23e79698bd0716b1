// Task runs Grappa-style tasks across the ranks of a job: an unbalanced
// parallel loop whose slow iterations all start on rank 0, so the other
// ranks must steal to help, then a tree of tasks that spawn tasks on
// other ranks under one completion event. Rank 0 checks that every loop
// index ran exactly once and that every tree node ran before Wait
// returned. With -lose R, rank R dies in the middle of a group and the
// others check that their Wait fails with comm.ErrPeerLost.
//
//	plexus run -n 3 -- go run ./examples/task -n 3000
package main

import (
	"context"
	"encoding/binary"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/task"
)

func main() {
	n := flag.Int64("n", 3000, "loop indices")
	depth := flag.Int64("depth", 10, "depth of the tree of tasks")
	lose := flag.Int("lose", -1, "this rank dies in the middle of a group; the others check that they fail")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, *n, *depth, *lose); err != nil {
		fmt.Fprintln(os.Stderr, "task:", err)
		os.Exit(1)
	}
}

// rank is one rank's state: what its tasks counted, and the handles
// every rank registered alike.
type rank struct {
	w     *comm.World
	e     *am.Engine
	pool  *task.Pool
	hits  []atomic.Uint32 // loop iterations run here, per index
	nodes atomic.Int64    // tree nodes run here
	seen  atomic.Int64    // nodes run here when this rank's Wait returned

	loop      task.Loop
	node, die task.Func
	slow      task.Loop
	counts    am.ID
}

func run(ctx context.Context, n, depth int64, lose int) error {
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	r := &rank{w: w, hits: make([]atomic.Uint32, n)}
	if err := r.start(ctx, n); err != nil {
		return err
	}
	if lose >= 0 {
		return r.losing(ctx, lose)
	}
	if err := r.loopPhase(ctx, n); err != nil {
		return err
	}
	if err := r.treePhase(ctx, depth); err != nil {
		return err
	}
	return r.close(ctx)
}

// start registers the same functions and handlers on every rank, in the
// same order, and starts the engine and the pool.
func (r *rank) start(ctx context.Context, n int64) error {
	var reg am.Registry
	pool, err := task.New(&reg, task.Config{})
	if err != nil {
		return err
	}
	r.pool = pool
	slowEnd := n / int64(r.w.Size()) // rank 0's block: every slow iteration starts there
	r.loop, err = pool.RegisterLoop("count", func(_ context.Context, _ *task.T, i int64) error {
		r.hits[i].Add(1)
		if i < slowEnd {
			time.Sleep(200 * time.Microsecond)
		}
		return nil
	})
	if err != nil {
		return err
	}
	r.node, err = pool.Register("node", r.visit)
	if err != nil {
		return err
	}
	r.die, _ = pool.Register("die", func(context.Context, *task.T, []byte) error {
		time.Sleep(20 * time.Millisecond) // while the others' loop runs
		os.Exit(0)                        // as a crashed process: nothing closed, nobody told
		return nil
	})
	r.slow, _ = pool.RegisterLoop("slow", func(context.Context, *task.T, int64) error {
		time.Sleep(time.Millisecond)
		return nil
	})
	r.counts, _ = reg.Register("counts", r.report)
	r.e, err = am.New(ctx, r.w, &reg, am.Config{})
	if err != nil {
		return err
	}
	return pool.Bind(r.e)
}

// report answers rank 0 with this rank's hit counts (a byte each), its
// steals and its tree nodes seen when its Wait returned.
func (r *rank) report(context.Context, int, []byte) ([]byte, error) {
	b := binary.LittleEndian.AppendUint64(nil, r.pool.Stats().Steals)
	b = binary.LittleEndian.AppendUint64(b, uint64(r.seen.Load()))
	for i := range r.hits {
		b = append(b, byte(min(r.hits[i].Load(), 255)))
	}
	return b, nil
}

// visit is a tree node: it spawns one child on the next rank and one
// stealable child here, until depth 0.
func (r *rank) visit(_ context.Context, t *task.T, args []byte) error {
	r.nodes.Add(1)
	d, err := task.Int(args, 0)
	if err != nil || d == 0 {
		return err
	}
	time.Sleep(50 * time.Microsecond)
	if err := t.SpawnOn((t.Rank()+1)%t.Size(), r.node, task.Ints(d-1)); err != nil {
		return err
	}
	return t.Spawn(r.node, task.Ints(d-1))
}
