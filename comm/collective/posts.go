package collective

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/comm"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// Flat collectives on posts (docs/design/collectives.md, "Posts across
// ranks"). When every rank shares one shared-memory segment
// (comm.World.Area), Barrier, Broadcast and Allreduce of at most
// shm.PostBytes run on the ranks' posts instead of the trees: each is one
// round, where a tree is a hop per level and each hop a ring message
// behind a sweep of every incoming ring.
//
//   - Barrier: every rank marks post k and waits for every rank's post k;
//     where the ranks outnumber the CPUs, gather and release (release).
//     Not between two ranks (flat.pair).
//   - Broadcast: the root writes post k; the others wait for it, copy it
//     and mark their own post k (saying they are done with the root's).
//   - Allreduce: every rank writes its input as post k, waits for every
//     rank's and folds them in rank order, so that every rank computes
//     the same bytes, floating point included.
//
// Invariants (f.seq and f.floor belong to the collective's goroutine):
//
//   - Every rank posts (writes or marks) every post k, in order, and
//     posts k only once it has finished with post k-1: so a rank that has
//     posted k-shm.PostDepth+1 no longer reads any post k-shm.PostDepth,
//     and a line may take a new payload (shm's reuse rule).
//   - floor is a post every rank is known to have posted; a payload for
//     post k is written only once floor ≥ k-shm.PostDepth+1 (reusable),
//     which a Barrier or Allreduce establishes for free and a run of
//     Broadcasts from one root by a look every few posts.
//   - A reader waits for a word ≥ shm.PostWord(k): a line's word holds
//     at most the writer's post k-shm.PostDepth before post k, and
//     reaches post k+shm.PostDepth only after the reader has posted k+1;
//     so the word a reader sees is post k's, and its length says whether
//     the writer agreed on the operation (flat.check).

// flat is a communicator's state on its lane of the area.
type flat struct {
	a     *comm.Area
	n, me int
	seq   uint64 // the last post of this rank
	floor uint64 // every rank has posted at least this
	// The waits' poll state: the post awaited, from whom (root) and the
	// first rank not yet seen to post it (next).
	want    uint64
	root    int
	next    int
	wantLen int // the length every post awaited must carry, or -1
	bad     int // the first rank seen to post another length, or -1
	// The polls as method values, made once: a method value made per
	// wait would be allocated per collective.
	pendAll, pendRoot func() int
	// crowded: the ranks outnumber the CPUs (plan.Crowded), and Barrier
	// gathers and releases (release).
	crowded bool
	// pair: two ranks, where Barrier keeps the links: there it is one
	// signal each way on them too (coll's pair barrier), which measured
	// as fast as the flat one (docs/benchmarks.md, "Flat collectives on
	// the segment's posts"). Allreduce and Broadcast run flat: they
	// measured faster flat than on the links in every state of machine C
	// but one (same document, "2-rank allreduce flat again").
	pair bool
}

func newFlat(a *comm.Area, crowded bool) *flat {
	f := &flat{a: a, n: a.Ranks(), me: a.Rank(), crowded: crowded, pair: a.Ranks() == 2}
	f.pendAll, f.pendRoot = f.allPending, f.rootPending
	return f
}

// allPending returns a rank that has not posted f.want, or -1. It notes
// the first rank whose post does not carry f.wantLen bytes (f.bad), when
// f.wantLen is set, so that the poll's one load per rank also checks.
func (f *flat) allPending() int {
	for w := shm.PostWord(f.want); f.next < f.n; f.next++ {
		v := f.a.Word(f.next, f.want).Load()
		if v < w {
			return f.next
		}
		if f.wantLen >= 0 && shm.PostLen(v) != f.wantLen && f.bad < 0 {
			f.bad = f.next
		}
	}
	return -1
}

// rootPending returns f.root if it has not posted f.want, else -1.
func (f *flat) rootPending() int {
	if f.a.Word(f.root, f.want).Load() < shm.PostWord(f.want) {
		return f.root
	}
	return -1
}

// check returns an error wrapping coll.ErrMismatch unless rank r's post k
// carries n bytes: ranks that disagree on a length (or on the operation:
// a mark where data was expected) fail rather than read what r did not
// write. A reader of post k sees its word, not a later one (invariants).
func (f *flat) check(r int, k uint64, n int) error {
	if got := shm.PostLen(f.a.Word(r, k).Load()); got != n {
		return fmt.Errorf("%w: rank %d posted %s for collective %d, rank %d expected %d bytes",
			coll.ErrMismatch, r, postDesc(got), k, f.me, n)
	}
	return nil
}

func postDesc(n int) string {
	if n == shm.MarkLen {
		return "no data (a barrier, or a broadcast it did not root)"
	}
	return fmt.Sprintf("%d bytes", n)
}

// waitAll waits for every rank's post k, whatever its length.
func (f *flat) waitAll(ctx context.Context, k uint64) error {
	f.want, f.next, f.wantLen = k, 0, -1
	if err := f.a.Wait(ctx, f.pendAll); err != nil {
		return err
	}
	f.floor = k
	return nil
}

// warm warms this rank's line for its next post where the reuse rule
// allows writing it already (shm.Posts.Warm). It runs right after a
// post, as package ring warms its next slot right after a message: the
// readers are then polling the line just posted, not the next one, so
// the store takes the line without their polls taking it back.
func (f *flat) warm() {
	if next := f.seq + 1; next < shm.PostDepth || f.floor >= next-shm.PostDepth+1 {
		f.a.Warm(next)
	}
}

// reusable waits until this rank may write a payload as post k. A root
// broadcasting in a row looks first whether every rank has posted k-1
// already, as they mostly have: then the next shm.PostDepth-2 posts need
// no look at all.
func (f *flat) reusable(ctx context.Context, k uint64) error {
	if k < shm.PostDepth || f.floor >= k-shm.PostDepth+1 {
		return nil
	}
	if f.want, f.next, f.wantLen = k-1, 0, -1; f.allPending() < 0 {
		f.floor = k - 1
		return nil
	}
	return f.waitAll(ctx, k-shm.PostDepth+1)
}

// barrier is Barrier on posts: all to all, or gather and release where
// the ranks outnumber the CPUs (flat.crowded).
func (f *flat) barrier(ctx context.Context) error {
	f.seq++
	if f.crowded {
		return f.release(ctx, f.seq)
	}
	f.a.Mark(f.seq)
	return f.waitAll(ctx, f.seq)
}

// release is a barrier in two steps: every rank but 0 marks post k, rank
// 0 waits for them all and marks its own, which the others wait for.
// Where the ranks share CPUs, a waiting rank then needs one other rank to
// have run, not all of them, and rank 0 leaves first, as a tree's root
// does.
func (f *flat) release(ctx context.Context, k uint64) error {
	if f.me != 0 {
		f.a.Mark(k)
		f.want, f.root = k, 0
		if err := f.a.Wait(ctx, f.pendRoot); err != nil {
			return err
		}
		f.floor = k // rank 0 marked k once every rank had
		return nil
	}
	f.want, f.next, f.wantLen = k, 1, -1
	if err := f.a.Wait(ctx, f.pendAll); err != nil {
		return err
	}
	f.floor = k
	f.a.Mark(k)
	return nil
}

// bcast is Broadcast on posts; len(buf) ≤ shm.PostBytes.
func (f *flat) bcast(ctx context.Context, root int, buf []byte) error {
	f.seq++
	k := f.seq
	if f.me == root {
		if err := f.reusable(ctx, k); err != nil {
			return err
		}
		err := f.a.Write(k, buf)
		f.warm()
		return err
	}
	f.want, f.root = k, root
	if err := f.a.Wait(ctx, f.pendRoot); err != nil {
		return err
	}
	if err := f.check(root, k, len(buf)); err != nil {
		return err
	}
	copy(buf, f.a.Payload(root, k, len(buf)))
	f.a.Mark(k)
	return nil
}

// allreduce is Allreduce on posts; len(in) ≤ shm.PostBytes and len(out)
// = len(in). out may overlap in: the fold reads only the posts.
func (f *flat) allreduce(ctx context.Context, in, out []byte, op func(acc, in []byte)) error {
	return f.allreduceWaiting(ctx, in, out, op, f.a.Wait)
}

// allreduceWaiting is allreduce, waiting for the posts with wait (the
// area's, or a host's wait in two levels: hostWait).
func (f *flat) allreduceWaiting(ctx context.Context, in, out []byte, op func(acc, in []byte),
	wait func(context.Context, func() int) error) error {
	f.seq++
	k := f.seq
	if err := f.reusable(ctx, k); err != nil {
		return err
	}
	if err := f.a.Write(k, in); err != nil {
		return err
	}
	f.warm()
	f.want, f.next, f.wantLen, f.bad = k, 0, len(in), -1
	if err := wait(ctx, f.pendAll); err != nil {
		return err
	}
	f.floor = k
	if f.bad >= 0 {
		return f.check(f.bad, k, len(in))
	}
	copy(out, f.a.Payload(0, k, len(in)))
	for r := 1; r < f.n; r++ {
		op(out, f.a.Payload(r, k, len(in)))
	}
	return nil
}
