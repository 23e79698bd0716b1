// Kv runs the replicated key-value store: ranks 0..2 are replicas that
// order Sets with 1Paxos, and every other rank is a client that writes
// its own key, reads it back at its nearest replica, and swaps a shared
// key, printing the value each Set replaced.
//
//	plexus run -n 4 -- go run ./examples/kv
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/kv"
)

const replicas = 3

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "kv:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	w, err := comm.JoinWith(ctx, comm.Config{MatchShards: kv.MatchShards}) // replicas receive with AnySource
	if err != nil {
		return err
	}
	defer w.Close()
	if w.Size() <= replicas {
		return fmt.Errorf("need more than %d ranks: %d replicas and at least one client", replicas, replicas)
	}
	if w.Rank() < replicas {
		return kv.ServeRanks(ctx, w, kv.RanksConfig{Replicas: replicas}) // until every client rank stops
	}
	return client(ctx, w)
}

func client(ctx context.Context, w *comm.World) error {
	c, err := kv.NewClient(w, kv.ClientConfig{Replicas: replicas, Prefer: w.Rank() % replicas})
	if err != nil {
		return err
	}
	defer c.Stop(ctx)
	own := fmt.Appendf(nil, "rank-%03d", w.Rank())
	if _, err := c.Set(ctx, own, []byte("mine")); err != nil {
		return err
	}
	v, err := c.Get(ctx, own) // sequentially consistent: a client reads its own Sets
	if err != nil {
		return err
	}
	fmt.Printf("client %d read %s = %q\n", w.Rank(), own, v)
	prev, err := c.Set(ctx, []byte("shared!!"), fmt.Appendf(nil, "from %d", w.Rank()))
	if err != nil {
		return err
	}
	fmt.Printf("client %d replaced %q\n", w.Rank(), prev)
	return nil
}
