package measure

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/plexus-hpc/plexus/affinity"
	"github.com/plexus-hpc/plexus/internal/wait"
)

// Invariants of one pair's run (see doc.go for the method):
//   - every message on the forward ring (sender→receiver) is sent with
//     TrySend into a ring the receiver has emptied, and Slots ≥ Batch, so
//     a timed send never finds the ring full;
//   - the receiver acknowledges each phase on the reverse ring before the
//     sender starts the next, so phases never overlap and both rings are
//     empty at the start of every phase;
//   - queued is written only by the sender and read only by the receiver:
//     its Store happens after the sender's last TrySend of the batch, so a
//     receiver that Loads the repetition's number sees the whole batch.

// errProtocol reports a broken invariant: a bug here or in the ring.
var errProtocol = errors.New("measure: pairwise protocol violated")

// pairRun is one ordered pair's measurement: the sender's and receiver's
// ends of a fresh ring pair and the samples each side takes.
type pairRun struct {
	cfg    Config
	tx, rx endpoint // tx: the sender's end, rx: the receiver's end
	base   time.Time
	// queued is the number (from 1) of the last repetition whose receive
	// batch the sender has fully enqueued.
	queued atomic.Int64
	out    samples
}

// now reads the monotonic clock, in nanoseconds since base. time.Since on a
// time with a monotonic reading reads only that clock.
func (p *pairRun) now() time.Duration { return time.Since(p.base) }

// measurePair runs one ordered pair: a sender goroutine pinned to cpu from
// and a receiver goroutine pinned to cpu to. It returns ctx.Err() if ctx
// ends first, else the first error of either side.
func measurePair(ctx context.Context, cfg Config, from, to int) (samples, error) {
	pctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	tx, rx := newPairs(cfg.Slots)
	p := &pairRun{cfg: cfg, tx: tx, rx: rx, base: time.Now()}
	// Appends happen outside the timed regions; preallocating bounds the
	// rare growth without trusting a huge Reps.
	c := min(cfg.Reps, 1<<12)
	p.out = samples{send: make([]float64, 0, c), recv: make([]float64, 0, c), rtt: make([]float64, 0, c)}
	var ready atomic.Int32
	var wg sync.WaitGroup
	for _, side := range []struct {
		cpu int
		run func(context.Context) error
	}{{from, p.sender}, {to, p.receiver}} {
		wg.Go(func() {
			if err := onCPU(pctx, side.cpu, &ready, 2, side.run); err != nil {
				cancel(err)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return samples{}, err
	}
	if err := context.Cause(pctx); err != nil {
		return samples{}, fmt.Errorf("measure: CPU %d → %d: %w", from, to, err)
	}
	return p.out, nil
}

// onCPU pins the calling goroutine to cpu, waits until all of the want
// goroutines sharing ready are pinned (the other side of a pair, or every
// side of a loaded round), runs f and unpins. The start barrier spins: a locked
// goroutine that blocks parks its thread, and its wake-up can wait for the
// peer's spinning goroutine to be preempted (5–10 ms a pair on the 2-CPU
// development machine, against 0.5 ms for a whole pair with spinning).
func onCPU(ctx context.Context, cpu int, ready *atomic.Int32, want int32, f func(context.Context) error) error {
	unpin, err := affinity.Pin(cpu)
	defer unpin()
	if err != nil {
		return err
	}
	ready.Add(1)
	if err := spinYield(ctx, func() bool { return ready.Load() == want }); err != nil {
		return err
	}
	return f(ctx)
}

// spinYield is spin for the untimed start barriers: every spinCheck polls
// it also gives up the CPU (sched_yield), so that a thread the kernel has
// just woken on this CPU, to start a goroutine that has yet to pin itself
// elsewhere, runs at once instead of after this spinner's time slice
// (milliseconds, when every CPU is busy as in the loaded phase).
func spinYield(ctx context.Context, poll func() bool) error {
	return spinEvery(ctx, poll, wait.OSYield)
}

// spinCheck is how many polls spin makes between looks at ctx: a poll
// costs tens of nanoseconds, so ctx is seen within microseconds.
const spinCheck = 64

// spin polls until poll reports true or ctx ends. It busy-waits, as Smelt's
// benchmark does: a sleeping thread would wake on a cold core.
func spin(ctx context.Context, poll func() bool) error {
	return spinEvery(ctx, poll, nil)
}

// spinEvery polls until poll reports true or ctx ends, looking at ctx and
// calling every (when not nil) each spinCheck polls.
func spinEvery(ctx context.Context, poll func() bool, every func()) error {
	done := ctx.Done()
	for i := 1; ; i++ {
		if poll() {
			return nil
		}
		if i%spinCheck == 0 {
			select {
			case <-done:
				return context.Cause(ctx)
			default:
			}
			if every != nil {
				every()
			}
		}
	}
}
