// Hello is the README's program: rank 0 sends rank 1 a greeting, every
// rank waits at a barrier, and the ranks add up their rank numbers with an
// allreduce.
//
//	plexus run -n 4 -- go run ./examples/hello
package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := run(ctx); err != nil {
		fmt.Fprintln(os.Stderr, "hello:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context) error {
	w, err := comm.Join(ctx) // rank and size from plexus run, mpirun, srun or torchrun
	if err != nil {
		return err
	}
	defer w.Close()

	// Point to point: rank 0 sends 5 bytes with tag 42, rank 1 receives them.
	const tag = 42
	switch {
	case w.Rank() == 0 && w.Size() > 1:
		if err := w.Send(ctx, 1, tag, []byte("hello")); err != nil {
			return err
		}
	case w.Rank() == 1:
		buf := make([]byte, 64)
		st, err := w.Recv(ctx, 0, tag, buf) // or comm.AnySource, comm.AnyTag
		if err != nil {
			return err
		}
		fmt.Printf("rank 1 received %q from rank %d\n", buf[:st.Len], st.Source)
	}

	// Collectives: every rank makes the communicator, then calls the same
	// collectives in the same order.
	c, err := collective.New(ctx, w, collective.Config{})
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Barrier(ctx); err != nil {
		return err
	}
	sum := make([]int, 1)
	add := func(a, b int) int { return a + b }
	if err := collective.AllreduceValues(ctx, c, []int{w.Rank()}, sum, add); err != nil {
		return err
	}
	fmt.Printf("rank %d of %d: the ranks add up to %d\n", w.Rank(), w.Size(), sum[0])
	return nil
}
