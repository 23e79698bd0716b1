// Am sends active messages between the ranks of a job: every rank posts
// -n small messages to every rank, aggregated into packets, then calls
// each rank to ask how many of its messages arrived.
//
//	plexus run -n 3 -- go run ./examples/am -n 10000
//
// With -callers G, each rank then runs G goroutines that each make -n
// blocking Calls, round robin over the ranks: the sparse, latency-bound
// traffic that node-level aggregation (-node) combines across the ranks
// of a host. Each rank reports its packets to other hosts.
package main

import (
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
)

func main() {
	n := flag.Int("n", 10000, "messages each rank posts to each rank")
	lose := flag.Int("lose", -1, "this rank exits at once, and the others check that their calls to it fail")
	node := flag.Bool("node", false, "ranks of one host combine their messages towards each other host")
	callers := flag.Int("callers", 0, "goroutines per rank making -n blocking Calls each, after the Posts")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx, opts{n: *n, lose: *lose, node: *node, callers: *callers}); err != nil {
		fmt.Fprintln(os.Stderr, "am:", err)
		os.Exit(1)
	}
}

type opts struct {
	n, lose, callers int
	node             bool
}

func run(ctx context.Context, o opts) error {
	n, lose := o.n, o.lose
	w, err := comm.Join(ctx)
	if err != nil {
		return err
	}
	defer w.Close()
	// Every rank registers the same handlers in the same order.
	var reg am.Registry
	received := make([]atomic.Int64, w.Size()) // messages from each rank
	add, _ := reg.Register("add", func(_ context.Context, from int, args []byte) ([]byte, error) {
		received[from].Add(1)
		return nil, nil
	})
	count, _ := reg.Register("count", func(_ context.Context, from int, _ []byte) ([]byte, error) {
		return binary.LittleEndian.AppendUint64(nil, uint64(received[from].Load())), nil
	})
	e, err := am.New(ctx, w, &reg, am.Config{NodeAggregation: o.node})
	if err != nil {
		return err
	}
	if lose >= 0 {
		return losing(ctx, w, e, count, lose)
	}
	args := make([]byte, 32)
	for range n {
		for dst := range w.Size() {
			if err := e.Post(ctx, dst, add, args); err != nil {
				return err
			}
		}
	}
	// A Call runs after every message posted before it to that rank.
	for dst := range w.Size() {
		reply, err := e.Call(ctx, dst, count, nil)
		if err != nil {
			return err
		}
		if got := binary.LittleEndian.Uint64(reply); got != uint64(n) {
			return fmt.Errorf("rank %d handled %d of this rank's %d messages", dst, got, n)
		}
	}
	s := e.Stats()
	fmt.Printf("rank %d: %d messages to each of %d ranks arrived exactly once, %.0f per packet\n",
		w.Rank(), n, w.Size(), s.MessagesPerPacket())
	start := time.Now()
	if err := callRounds(ctx, e, count, o.callers, n); err != nil {
		return err
	}
	took := time.Since(start)
	if err := barrier(ctx, w); err != nil { // nobody closes while others send to it
		return err
	}
	if o.callers > 0 {
		c := e.Stats()
		fmt.Printf("rank %d: calls: %d packets to other hosts carrying %d messages, %.0f calls/s\n",
			w.Rank(), c.RemotePackets-s.RemotePackets, c.RemoteMessages-s.RemoteMessages,
			float64(o.callers*n)/took.Seconds())
	}
	return e.Close(ctx)
}

// callRounds runs callers goroutines, each making n blocking Calls round
// robin over the ranks.
func callRounds(ctx context.Context, e *am.Engine, count am.ID, callers, n int) error {
	errs := make(chan error, callers)
	for g := range callers {
		go func() {
			for i := range n {
				if _, err := e.Call(ctx, (e.Rank()+g+i)%e.Size(), count, nil); err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	var first error
	for range callers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

func barrier(ctx context.Context, w *comm.World) error {
	c, err := collective.New(ctx, w, collective.Config{})
	if err != nil {
		return err
	}
	defer c.Close()
	return c.Barrier(ctx)
}

// losing makes rank lose exit as a crashed process would, without closing
// anything, while the other ranks call it until their calls fail.
func losing(ctx context.Context, w *comm.World, e *am.Engine, count am.ID, lose int) error {
	if w.Rank() == lose {
		os.Exit(0)
	}
	for {
		_, err := e.Call(ctx, lose, count, nil)
		if errors.Is(err, comm.ErrPeerLost) {
			fmt.Printf("rank %d: a call to rank %d failed with comm.ErrPeerLost\n", w.Rank(), lose)
			return nil
		}
		if err != nil {
			return err
		}
	}
}
