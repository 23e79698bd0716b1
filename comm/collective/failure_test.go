package collective

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/comm"
)

// TestPeerLoss kills a rank while the others run collectives in a loop:
// every survivor must fail with an error, not hang, within a few seconds.
func TestPeerLoss(t *testing.T) {
	for _, name := range []string{"twin", "tcp", "shm"} {
		if makers[name] == nil {
			continue
		}
		t.Run("transport="+name, func(t *testing.T) {
			const n = 4
			f := makers[name](t, n)
			ctx := testCtx(t)
			cs := newComms(t, ctx, f.ws, Config{Model: Placement})
			time.AfterFunc(20*time.Millisecond, func() { f.kill(2) })
			start := time.Now()
			err := eachRank(n, func(r int) error {
				if r == 2 {
					return nil
				}
				for {
					if err := cs[r].Allreduce(ctx, make([]byte, 8), make([]byte, 8), func(a, b []byte) {}); err != nil {
						if errors.Is(err, context.DeadlineExceeded) {
							return err
						}
						return nil
					}
					if err := cs[r].Barrier(ctx); err != nil {
						return nil
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); d > 5*time.Second {
				t.Fatalf("survivors took %v to fail", d)
			}
			for r, c := range cs {
				if r != 2 && !errors.Is(c.Err(), ErrClosed) {
					t.Errorf("rank %d usable after a peer died: %v", r, c.Err())
				}
			}
		})
	}
}

// TestMismatchAborts makes one rank call with a different length: every
// rank fails, the ranks not next to it through the abort.
func TestMismatchAborts(t *testing.T) {
	const n = 5
	f := twinWorlds(t, n)
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement, MaxMessage: 64})
	failed := make([]error, n)
	eachRank(n, func(r int) error {
		size := 8
		if r == 3 {
			size = 16
		}
		failed[r] = cs[r].Allreduce(ctx, make([]byte, size), make([]byte, 16), func(a, b []byte) {})
		if failed[r] == nil {
			failed[r] = cs[r].Barrier(ctx)
		}
		return nil
	})
	for r, err := range failed {
		switch {
		case err == nil:
			t.Errorf("rank %d: no error", r)
		case errors.Is(err, context.DeadlineExceeded):
			t.Errorf("rank %d hung: %v", r, err)
		}
	}
	if !errors.Is(errors.Join(failed...), coll.ErrMismatch) {
		t.Errorf("no rank saw the mismatch: %v", failed)
	}
}

// TestCancelEndsEverywhere ends one rank's context while it waits in a
// barrier the others have not reached yet: they fail too, through the
// abort, rather than wait for it.
func TestCancelEndsEverywhere(t *testing.T) {
	const n = 3
	f := twinWorlds(t, n)
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement})
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	err := eachRank(n, func(r int) error {
		if r == 1 {
			if err := cs[r].Barrier(short); !errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("got %v, want the deadline", err)
			}
			return nil
		}
		time.Sleep(100 * time.Millisecond)
		if err := cs[r].Barrier(ctx); !errors.Is(err, comm.ErrLinkAborted) {
			return fmt.Errorf("got %v, want ErrLinkAborted", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestClosed checks that a closed communicator refuses collectives.
func TestClosed(t *testing.T) {
	f := twinWorlds(t, 1)
	ctx := testCtx(t)
	c := newComms(t, ctx, f.ws, Config{})[0]
	if err := c.Barrier(ctx); err != nil {
		t.Fatal(err)
	}
	c.Close()
	if err := c.Barrier(ctx); !errors.Is(err, ErrClosed) {
		t.Fatalf("got %v, want ErrClosed", err)
	}
}

// TestClosedWhileWaiting closes a communicator under a barrier that waits
// for a rank that never comes: the barrier fails with the communicator's
// ErrClosed, not with the ErrClosed of the team inside it.
func TestClosedWhileWaiting(t *testing.T) {
	f := twinWorlds(t, 2)
	ctx := testCtx(t)
	c := newComms(t, ctx, f.ws, Config{Model: Placement})[0]
	time.AfterFunc(20*time.Millisecond, c.Close)
	err := c.Barrier(ctx)
	if !errors.Is(err, ErrClosed) || errors.Is(err, coll.ErrClosed) {
		t.Fatalf("got %v, want ErrClosed and not coll.ErrClosed", err)
	}
}

// TestClosedWorld closes the worlds under live communicators: every
// collective then fails with an error wrapping comm.ErrClosed, the first
// and the later ones alike.
func TestClosedWorld(t *testing.T) {
	const n = 3
	f := twinWorlds(t, n)
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement})
	closeAll(f.ws)
	err := eachRank(n, func(r int) error {
		for i, op := range []func() error{
			func() error { return cs[r].Barrier(ctx) },
			func() error {
				return AllreduceValues(ctx, cs[r], []int{r}, make([]int, 1), func(a, b int) int { return a + b })
			},
		} {
			if err := op(); !errors.Is(err, comm.ErrClosed) {
				return fmt.Errorf("collective %d: got %v, want comm.ErrClosed", i, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
