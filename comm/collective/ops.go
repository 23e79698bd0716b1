package collective

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/coll"
	"github.com/plexus-hpc/plexus/transport/shm"
)

// The trees have one root (Root). A collective rooted at another rank
// takes one more hop, over the direct link between that rank and the
// trees' root: a broadcast's data goes there first, a reduction's or
// gather's result comes from there last. Buffers longer than MaxMessage
// go down (and up) the trees in pieces, one after the other, so that the
// pieces pipeline along the tree's paths.

// Broadcast delivers root's buf to every rank's buf. Every rank passes a buf
// of the same length, and every rank names the same root, as in
// MPI_Bcast. (coll's Member.Broadcast differs on purpose: a team's root is
// fixed when the team is made and sequences messages of any length that
// several goroutines may send, so there the length travels and is
// returned.) A buf of at most shm.PostBytes goes in one step on the
// collective area when every rank shares one shared-memory segment.
func (c *Comm) Broadcast(ctx context.Context, root int, buf []byte) error {
	if err := c.begin(ctx); err != nil {
		return err
	}
	if err := c.checkRoot(root); err != nil {
		return err
	}
	if c.flat != nil && len(buf) <= shm.PostBytes {
		return c.done(c.flat.bcast(ctx, root, buf))
	}
	if c.hier != nil && len(buf) <= shm.PostBytes {
		return c.done(c.hier.bcast(ctx, c.Rank(), root, buf))
	}
	return c.done(c.bcastFrom(ctx, root, buf))
}

func (c *Comm) bcastFrom(ctx context.Context, root int, buf []byte) error {
	if err := c.toTreeRoot(ctx, root, buf); err != nil {
		return err
	}
	for off := 0; off < len(buf); off += c.cfg.MaxMessage {
		piece := buf[off:min(len(buf), off+c.cfg.MaxMessage)]
		n, err := c.member.Broadcast(ctx, piece, len(piece))
		if err != nil {
			return err
		}
		if n != len(piece) {
			return fmt.Errorf("%w: broadcast piece of %d bytes, %d expected", coll.ErrMismatch, n, len(piece))
		}
	}
	return nil
}

// Reduce combines every rank's in with op and leaves the result in root's
// out, which must hold len(in) bytes; other ranks' out is untouched (it
// may be nil). Every rank passes an in of the same length.
//
// op(acc, in) folds in into acc. It must be associative and commutative
// (ranks fold in arrival order) and act element by element on elements
// whose size divides 64: inputs longer than MaxMessage are reduced in
// pieces cut at multiples of 64 bytes.
//
// Reduce is the byte-level form of ReduceValues, for element types of the
// caller's own; numbers are simpler with ReduceValues.
func (c *Comm) Reduce(ctx context.Context, root int, in, out []byte, op func(acc, in []byte)) error {
	if op == nil && len(in) > 0 {
		return errNilOp
	}
	if err := c.begin(ctx); err != nil {
		return err
	}
	if err := c.checkRoot(root); err != nil {
		return err
	}
	if c.Rank() == root && len(out) < len(in) {
		return errShort(len(out), len(in))
	}
	dst := out
	if c.Rank() == c.Root() && root != c.Root() {
		dst = c.scratchOf(len(in))
	}
	err := c.reducePieces(ctx, in, dst, op, c.member.Reduce)
	if err == nil {
		err = c.fromTreeRoot(ctx, root, dst[:min(len(dst), len(in))])
	}
	return c.done(err)
}

// Allreduce is Reduce with the result in every rank's out, which must
// hold len(in) bytes everywhere. It is the byte-level form of
// AllreduceValues. Inputs of at most PostBytes run flat on the
// collective area, where every rank folds the inputs in rank order, so
// every rank gets the same bytes even for an op that is not associative
// in floating point.
func (c *Comm) Allreduce(ctx context.Context, in, out []byte, op func(acc, in []byte)) error {
	if op == nil && len(in) > 0 {
		return errNilOp
	}
	if err := c.begin(ctx); err != nil {
		return err
	}
	if len(out) < len(in) {
		return errShort(len(out), len(in))
	}
	if len(in) <= c.PostBytes() {
		if c.hier != nil {
			return c.done(c.hier.allreduce(ctx, in, out[:len(in)], op))
		}
		if c.across != nil {
			return c.done(c.across.allreduce(ctx, in, out[:len(in)], op))
		}
		return c.done(c.flat.allreduce(ctx, in, out[:len(in)], op))
	}
	return c.done(c.reducePieces(ctx, in, out, op, c.member.Allreduce))
}

// reducePieces runs f on pieces of in and out no longer than MaxMessage
// rounded down to 64 bytes; an empty in is one empty piece. Off the
// reducing ranks out may be nil.
func (c *Comm) reducePieces(ctx context.Context, in, out []byte, op func(acc, in []byte),
	f func(ctx context.Context, in, out []byte, op func(acc, in []byte)) error) error {
	step := c.cfg.MaxMessage &^ 63
	if len(in) <= step && len(out) >= len(in) {
		return f(ctx, in, out[:len(in)], op) // one piece: no slicing loop
	}
	for off := 0; ; off += step {
		end := min(len(in), off+step)
		var o []byte
		if len(out) >= end {
			o = out[off:end]
		}
		if err := f(ctx, in[off:end], o, op); err != nil || end == len(in) {
			return err
		}
	}
}

// Barrier returns once every rank has entered it: Smelt's barrier, a
// zero-payload reduction up the reduction tree and a zero-payload
// broadcast down the broadcast tree; or, when more than two ranks share
// one shared-memory segment, one round on the segment's collective area
// (posts.go).
func (c *Comm) Barrier(ctx context.Context) error {
	if err := c.begin(ctx); err != nil {
		return err
	}
	if c.flat != nil && !c.flat.pair {
		return c.done(c.flat.barrier(ctx))
	}
	if c.hier != nil {
		return c.done(c.hier.barrier(ctx))
	}
	return c.done(c.member.Barrier(ctx))
}

// Gather collects every rank's in at root: out[r*len(in):] gets rank r's.
// Every rank passes an in of the same length; root's out must hold Size ×
// len(in) bytes, other ranks' is untouched (it may be nil).
func (c *Comm) Gather(ctx context.Context, root int, in, out []byte) error {
	if err := c.begin(ctx); err != nil {
		return err
	}
	if err := c.checkRoot(root); err != nil {
		return err
	}
	total := c.Size() * len(in)
	if c.Rank() == root && len(out) < total {
		return errShort(len(out), total)
	}
	dst := out
	if c.Rank() == c.Root() && root != c.Root() {
		dst = c.scratchOf(total)
	}
	err := c.member.Gather(ctx, in, dst)
	if err == nil {
		err = c.fromTreeRoot(ctx, root, dst[:min(len(dst), total)])
	}
	return c.done(err)
}

// Allgather is Gather with the result in every rank's out, which must hold
// Size × len(in) bytes everywhere.
func (c *Comm) Allgather(ctx context.Context, in, out []byte) error {
	if err := c.begin(ctx); err != nil {
		return err
	}
	if total := c.Size() * len(in); len(out) < total {
		return errShort(len(out), total)
	}
	return c.done(c.member.Allgather(ctx, in, out))
}
