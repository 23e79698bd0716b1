//go:build linux

package collective

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// TestPostsOps: on one shared-memory segment, Barrier, Broadcast and
// Allreduce of small payloads run on the collective area, back to back
// over many more rounds than a rank has lines, with ranks that sleep at
// random points (a post still being read must not be overwritten); every
// broadcast delivers the root's bytes, and every allreduce of floating
// point values gives every rank the same bytes, those of the fold in rank
// order.
func TestPostsOps(t *testing.T) {
	for _, name := range []string{"shm", "serial"} {
		for _, n := range []int{2, 3, 4} {
			t.Run(fmt.Sprintf("transport=%s/ranks=%d", name, n), func(t *testing.T) {
				f := makers[name](t, n)
				ctx := testCtx(t)
				cs := newComms(t, ctx, f.ws, Config{Model: Placement})
				for r, c := range cs {
					if c.flat == nil || c.PostBytes() != shm.PostBytes {
						t.Fatalf("rank %d: area %v, PostBytes %d, want the area and %d", r, c.flat != nil, c.PostBytes(), shm.PostBytes)
					}
				}
				runPostRounds(t, ctx, cs, count(400))
			})
		}
	}
}

// TestPostsCrowded: the gather-and-release barrier that ranks which
// outnumber the CPUs use, in the same mix of collectives.
func TestPostsCrowded(t *testing.T) {
	for _, n := range []int{3, 4} {
		t.Run(fmt.Sprintf("ranks=%d", n), func(t *testing.T) {
			f := serialWorlds(t, n)
			ctx := testCtx(t)
			cs := newComms(t, ctx, f.ws, Config{Model: Placement})
			for _, c := range cs {
				c.flat.crowded = true // as plan.Crowded would make it
			}
			runPostRounds(t, ctx, cs, count(400))
		})
	}
}

// count is n, or a tenth of it in short mode.
func count(n int) int {
	if testing.Short() {
		return max(1, n/10)
	}
	return n
}

// runPostRounds runs rounds of mixed collectives on cs, one rank per
// goroutine, and compares every rank's results.
func runPostRounds(t *testing.T, ctx context.Context, cs []*Comm, rounds int) {
	n := len(cs)
	got := make([][][]byte, n) // rank → round → result
	err := eachRank(n, func(r int) error {
		rng := rand.New(rand.NewPCG(uint64(r), 7))
		for i := range rounds {
			if rng.IntN(16) == 0 {
				time.Sleep(time.Duration(rng.IntN(300)) * time.Microsecond)
			}
			res, err := postRound(ctx, cs[r], i)
			if err != nil {
				return fmt.Errorf("round %d: %w", i, err)
			}
			got[r] = append(got[r], res)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for i := range rounds {
		want := wantRound(n, i)
		for r := range n {
			if !bytes.Equal(got[r][i], want) {
				t.Fatalf("round %d (%s): rank %d got %x, want %x", i, roundOp(i), r, got[r][i], want)
			}
		}
	}
}

// roundOp is the collective of round i, the same at every rank.
func roundOp(i int) string {
	switch i % 5 {
	case 0, 3:
		return "allreduce"
	case 1, 4:
		return "bcast"
	}
	return "barrier"
}

// roundValues are rank r's float64 inputs in round i: magnitudes far
// apart, so that the sum depends on the order of the fold.
func roundValues(r, i int) []float64 {
	return []float64{math.Ldexp(1+float64(r), 53*(r%2)) * float64(i+1), 0.1 * float64(r+i), -float64(r) / 3}
}

func putFloats(v []float64) []byte {
	b := make([]byte, 8*len(v))
	for j, x := range v {
		binary.LittleEndian.PutUint64(b[8*j:], math.Float64bits(x))
	}
	return b
}

func addFloats(acc, in []byte) {
	for j := 0; j < len(acc); j += 8 {
		x := math.Float64frombits(binary.LittleEndian.Uint64(acc[j:])) + math.Float64frombits(binary.LittleEndian.Uint64(in[j:]))
		binary.LittleEndian.PutUint64(acc[j:], math.Float64bits(x))
	}
}

// postRound runs round i at c and returns its result.
func postRound(ctx context.Context, c *Comm, i int) ([]byte, error) {
	switch roundOp(i) {
	case "allreduce":
		out := make([]byte, 24)
		err := c.Allreduce(ctx, putFloats(roundValues(c.Rank(), i)), out, addFloats)
		return out, err
	case "bcast":
		root := i % c.Size()
		buf := make([]byte, 8+i%(shm.PostBytes-7))
		if c.Rank() == root {
			copy(buf, bcastData(i, len(buf)))
		}
		err := c.Broadcast(ctx, root, buf)
		return buf, err
	}
	return nil, c.Barrier(ctx)
}

func bcastData(i, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(i*13 + j)
	}
	return b
}

// wantRound is round i's result at every rank of n.
func wantRound(n, i int) []byte {
	switch roundOp(i) {
	case "allreduce":
		acc := putFloats(roundValues(0, i))
		for r := 1; r < n; r++ {
			addFloats(acc, putFloats(roundValues(r, i)))
		}
		return acc
	case "bcast":
		return bcastData(i, 8+i%(shm.PostBytes-7))
	}
	return nil
}

// TestPostsFallback: payloads longer than a post, and communicators that
// may not use the area, take the links; they mix with flat collectives
// on one communicator.
func TestPostsFallback(t *testing.T) {
	f := shmWorlds(t, 3)
	ctx := testCtx(t)
	flat := newComms(t, ctx, f.ws, Config{Model: Placement})
	links := newComms(t, ctx, f.ws, Config{Model: Placement, NoPosts: true})
	if got := links[0].PostBytes(); got != -1 {
		t.Errorf("NoPosts communicator: PostBytes %d, want -1", got)
	}
	err := eachRank(3, func(r int) error {
		for i := range 20 {
			if err := checkAllreduce(ctx, flat[r], i, 1+i%12); err != nil { // 8 to 96 bytes
				return err
			}
			if err := links[r].Barrier(ctx); err != nil {
				return err
			}
			if err := checkAllreduce(ctx, links[r], i, 1); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPostsTwinNone: worlds that share no segment have no area.
func TestPostsTwinNone(t *testing.T) {
	f := twinWorlds(t, 2)
	cs := newComms(t, testCtx(t), f.ws, Config{Model: Placement})
	if got := cs[0].PostBytes(); got != -1 {
		t.Errorf("twin worlds: PostBytes %d, want -1", got)
	}
}

// TestPostsPeerLost: a rank that leaves while the others wait for its
// post (in a barrier, a broadcast it roots, an allreduce) ends their wait
// with an error wrapping comm.ErrPeerLost and leaves the communicator
// closed, rather than hanging.
func TestPostsPeerLost(t *testing.T) {
	for _, name := range []string{"shm", "serial"} {
		for _, op := range []string{"barrier", "bcast", "allreduce"} {
			t.Run("transport="+name+"/op="+op, func(t *testing.T) {
				const n = 3
				f := makers[name](t, n)
				ctx := testCtx(t)
				cs := newComms(t, ctx, f.ws, Config{Model: Placement})
				time.AfterFunc(30*time.Millisecond, func() { f.kill(n - 1) })
				start := time.Now()
				err := eachRank(n-1, func(r int) error {
					return lostOp(ctx, cs[r], op, n-1)
				})
				if d := time.Since(start); d > 10*time.Second {
					t.Errorf("survivors took %v to fail", d)
				}
				if !errors.Is(err, comm.ErrPeerLost) && !errors.Is(err, comm.ErrLinkAborted) {
					t.Fatalf("survivors' error %v, want one wrapping comm.ErrPeerLost or comm.ErrLinkAborted", err)
				}
				for r := range n - 1 {
					if !errors.Is(cs[r].Err(), ErrClosed) {
						t.Errorf("rank %d usable after a peer died: %v", r, cs[r].Err())
					}
				}
			})
		}
	}
}

// lostOp runs op at c, which waits for rank gone.
func lostOp(ctx context.Context, c *Comm, op string, gone int) error {
	var err error
	switch op {
	case "barrier":
		err = c.Barrier(ctx)
	case "bcast":
		err = c.Broadcast(ctx, gone, make([]byte, 8))
	default:
		err = c.Allreduce(ctx, make([]byte, 8), make([]byte, 8), func(a, b []byte) {})
	}
	if err == nil {
		return errors.New("collective without the lost rank succeeded")
	}
	return err
}

// TestPostsBcastRun: a root broadcasting in a row, never waiting, while
// the other ranks sleep at random points, must not overwrite a post that
// a slow rank has yet to read: every rank receives every broadcast's own
// bytes.
func TestPostsBcastRun(t *testing.T) {
	const n = 3
	f := shmWorlds(t, n)
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement})
	rounds := count(2000)
	err := eachRank(n, func(r int) error {
		rng := rand.New(rand.NewPCG(uint64(r), 11))
		buf := make([]byte, 16)
		for i := range rounds {
			if r != 0 && rng.IntN(8) == 0 {
				time.Sleep(time.Duration(rng.IntN(100)) * time.Microsecond)
			}
			if r == 0 {
				copy(buf, bcastData(i, len(buf)))
			}
			if err := cs[r].Broadcast(ctx, 0, buf); err != nil {
				return err
			}
			if want := bcastData(i, len(buf)); !bytes.Equal(buf, want) {
				return fmt.Errorf("broadcast %d: got %x, want %x", i, buf, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestPostsCloseMidWait: Close from another goroutine ends a flat
// collective waiting for ranks that never come, with ErrClosed.
func TestPostsCloseMidWait(t *testing.T) {
	f := serialWorlds(t, 3)
	ctx := testCtx(t)
	cs := newComms(t, ctx, f.ws, Config{Model: Placement})
	time.AfterFunc(20*time.Millisecond, cs[0].Close)
	if err := cs[0].Barrier(ctx); !errors.Is(err, ErrClosed) {
		t.Errorf("barrier closed mid-wait = %v, want ErrClosed", err)
	}
}

// TestPostsMismatch: a rank that disagrees on a flat collective's length
// fails with coll.ErrMismatch rather than read bytes that were not posted
// for it; in an allreduce every rank sees it or the abort it causes.
func TestPostsMismatch(t *testing.T) {
	for _, op := range []string{"allreduce", "bcast"} {
		t.Run("op="+op, func(t *testing.T) {
			const n = 3
			f := shmWorlds(t, n)
			ctx := testCtx(t)
			cs := newComms(t, ctx, f.ws, Config{Model: Placement})
			errs := make([]error, n)
			eachRank(n, func(r int) error {
				size := 8
				if r == 1 {
					size = 16
				}
				if op == "allreduce" {
					errs[r] = cs[r].Allreduce(ctx, make([]byte, size), make([]byte, size), func(a, b []byte) {})
				} else {
					errs[r] = cs[r].Broadcast(ctx, 0, make([]byte, size))
				}
				return nil
			})
			if !errors.Is(errs[1], coll.ErrMismatch) {
				t.Errorf("rank 1 (16 bytes): %v, want coll.ErrMismatch", errs[1])
			}
			for _, r := range []int{0, 2} {
				err := errs[r]
				switch {
				case op == "bcast" && err == nil: // agrees with the root
				case errors.Is(err, coll.ErrMismatch), errors.Is(err, comm.ErrLinkAborted):
				default:
					t.Errorf("rank %d: %v, want coll.ErrMismatch or the abort", r, err)
				}
			}
		})
	}
}
