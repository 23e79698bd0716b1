package pgas

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/comm/collective"
)

// rankEnv makes the test binary act as a rank of a job that plexus run
// (launch.Job) started, instead of running tests: the TestMain re-exec
// pattern, so that the job tests need no separately built program. Its
// value is the mode: "all" (cache write-back and every delegate) or
// "kill" (a rank dies mid-load).
const rankEnv = "PGAS_TEST_RANK"

func TestMain(m *testing.M) {
	if mode := os.Getenv(rankEnv); mode != "" {
		os.Exit(rankMain(mode))
	}
	os.Exit(m.Run())
}

// rank is one process of a job: its world, barrier, engine and heap.
type rank struct {
	w   *comm.World
	c   *collective.Comm
	e   *am.Engine
	h   *Heap
	inc Func[int64] // adds 1, replies nothing
	n   int         // the load, from PGAS_TEST_N
}

func rankMain(mode string) int {
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	r, err := joinRank(ctx)
	if err == nil {
		defer r.w.Close()
		defer r.c.Close()
		switch mode {
		case "all":
			err = r.all(ctx)
		case "kill":
			err = r.kill(ctx, r.w.Size()-1)
		default:
			err = fmt.Errorf("unknown mode %q", mode)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgas rank:", err)
		return 1
	}
	return 0
}

// joinRank does what a pgas program does first.
func joinRank(ctx context.Context) (*rank, error) {
	r := &rank{}
	r.n, _ = strconv.Atoi(os.Getenv("PGAS_TEST_N"))
	var err error
	if r.w, err = comm.Join(ctx); err != nil {
		return nil, err
	}
	if r.c, err = collective.New(ctx, r.w, collective.Config{}); err != nil {
		return nil, err
	}
	var reg am.Registry
	if r.h, err = New(&reg, Config{}); err != nil {
		return nil, err
	}
	r.inc, err = RegisterFunc(r.h, "inc", func(v int64, _ []byte) (int64, []byte, error) { return v + 1, nil, nil })
	if err != nil {
		return nil, err
	}
	if r.e, err = am.New(ctx, r.w, &reg, am.Config{}); err != nil {
		return nil, err
	}
	return r, r.h.Bind(r.e)
}

// all runs the cache write-back, then every delegate, and closes.
func (r *rank) all(ctx context.Context) error {
	if err := r.writeBack(ctx); err != nil {
		return fmt.Errorf("cache write-back: %w", err)
	}
	if err := r.delegates(ctx); err != nil {
		return fmt.Errorf("delegates: %w", err)
	}
	if err := r.c.Barrier(ctx); err != nil { // nobody closes while others send to it
		return err
	}
	return r.e.Close(ctx)
}

// writeBack: rank 0 fills the array through a write-only cache; every
// rank acquires read-write a share that spans every rank, adds to it and
// releases it; every rank then reads the whole array and checks it.
func (r *rank) writeBack(ctx context.Context) error {
	n := r.n * r.w.Size()
	a, err := Alloc[int64](ctx, r.h, n)
	if err != nil {
		return err
	}
	if r.w.Rank() == 0 {
		if err := r.fill(ctx, a); err != nil {
			return err
		}
	}
	if err := r.c.Barrier(ctx); err != nil {
		return err
	}
	me, size := r.w.Rank(), r.w.Size()
	lo, hi := me*n/size, (me+1)*n/size
	if err := share64(ctx, a, lo, hi, int64(1_000_000*(me+1))); err != nil {
		return err
	}
	if err := r.c.Barrier(ctx); err != nil {
		return err
	}
	c, err := a.Acquire(ctx, 0, n, ReadOnly)
	if err != nil {
		return err
	}
	for i, v := range c.Data() {
		if want := int64(i + 1_000_000*(owner(i, n, size)+1)); v != want {
			return fmt.Errorf("element %d = %d after write-back; want %d", i, v, want)
		}
	}
	fmt.Printf("rank %d: cache write-back of %d elements over %d ranks exact\n", me, n, size)
	return c.Release(ctx)
}

func (r *rank) fill(ctx context.Context, a Array[int64]) error {
	c, err := a.Acquire(ctx, 0, a.Len(), WriteOnly)
	if err != nil {
		return err
	}
	for i := range c.Data() {
		c.Data()[i] = int64(i)
	}
	return c.Release(ctx)
}

// share64 checks that [lo, hi) holds its indices and adds add to each
// through a read-write cache.
func share64(ctx context.Context, a Array[int64], lo, hi int, add int64) error {
	c, err := a.Acquire(ctx, lo, hi-lo, ReadWrite)
	if err != nil {
		return err
	}
	for i := range c.Data() {
		if c.Data()[i] != int64(lo+i) {
			return fmt.Errorf("read-write cache of [%d, %d): element %d = %d", lo, hi, lo+i, c.Data()[i])
		}
		c.Data()[i] += add
	}
	return c.Release(ctx)
}
