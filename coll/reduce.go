package coll

import (
	"context"
	"fmt"

	"github.com/plexus-hpc/plexus/tree"
)

// Reduce combines every member's in with op up the reduction tree and
// leaves the result in out at the root (Smelt's reduction, §4.2.2). Every
// member must pass an in of the same length, at most the team's
// MaxMessage; out must hold len(in) bytes at the root and is untouched
// elsewhere.
//
// op(acc, in) folds in into acc, both len(in) bytes long. Each member
// folds its children's partial results in the order they arrive, which
// varies from run to run, so op must be associative and commutative for
// the result to be well defined. op may be nil only when in is empty
// (nothing to fold: the reduction then only synchronises); otherwise a
// nil op is an error wrapping ErrArgument.
//
// Reduce is the byte-level form of ReduceValues, for element types of the
// caller's own; numbers are simpler with ReduceValues.
func (m *Member) Reduce(ctx context.Context, in, out []byte, op func(acc, in []byte)) error {
	if op == nil && len(in) > 0 {
		return m.fail(errNilOp)
	}
	if err := m.checkSize(len(in)); err != nil {
		return err
	}
	if m.root && len(out) < len(in) {
		return m.fail(errShortOut(len(out), len(in)))
	}
	acc := m.acc[:len(in)]
	copy(acc, in)
	if err := m.gather(ctx, acc, op); err != nil {
		return err
	}
	if m.root {
		copy(out, acc)
		return nil
	}
	return m.sendUp(ctx, acc)
}

// sendUp sends p to the reduction parent: by mail in an in-process team,
// else on the link.
func (m *Member) sendUp(ctx context.Context, p []byte) error {
	if m.mail != nil {
		return m.postUp(ctx, p)
	}
	return m.send(ctx, m.rparent, p)
}

// checkSize fails the team with ErrTooLarge when a reduction of n bytes
// exceeds MaxMessage.
func (m *Member) checkSize(n int) error {
	if n > len(m.acc) {
		return m.fail(fmt.Errorf("%w: reduction of %d bytes, team limit %d", ErrTooLarge, n, len(m.acc)))
	}
	return nil
}

// gather folds every reduction child's message into acc as it arrives,
// polling the children in turn as Smelt does, so that a slow child does
// not hold up the folding of the others. op may be nil (zero payloads).
func (m *Member) gather(ctx context.Context, acc []byte, op func(acc, in []byte)) error {
	if m.mail != nil {
		return m.gatherMail(ctx, acc, op)
	}
	return m.pollChildren(ctx, func(pending []int) ([]int, error) { return m.poll(pending, acc, op) })
}

// pollChildren calls poll with the reduction children not yet heard
// from (by index in rkids) until none is left, waiting under the spinner
// between polls that took nothing.
func (m *Member) pollChildren(ctx context.Context, poll func(pending []int) ([]int, error)) error {
	pending := m.pending[:0]
	for i := range m.rkids {
		pending = append(pending, i)
	}
	var s spinner // started at the first failed poll (Member.idle)
	for len(pending) > 0 {
		before := len(pending)
		var err error
		if pending, err = poll(pending); err != nil {
			s.settle()
			return err
		}
		if len(pending) == before && m.idle(&s) {
			if err := m.check(ctx); err != nil {
				s.settle()
				return m.fail(err)
			}
		}
	}
	s.settle()
	return nil
}

// poll tries each pending child once, folds what has arrived and returns
// the children still pending.
func (m *Member) poll(pending []int, acc []byte, op func(acc, in []byte)) ([]int, error) {
	for i := 0; i < len(pending); {
		e := m.rkids[pending[i]]
		n, ok, err := e.TryRecv(m.rx)
		switch {
		case err != nil:
			return pending, m.fail(linkErr(err))
		case !ok:
			i++
			continue
		case n != len(acc):
			return pending, m.fail(fmt.Errorf("%w: reduction input of %d bytes from a child, %d here",
				ErrMismatch, n, len(acc)))
		}
		m.took(e)
		if op != nil {
			op(acc, m.rx[:n])
		}
		pending[i] = pending[len(pending)-1]
		pending = pending[:len(pending)-1]
	}
	return pending, nil
}

// Allreduce is Reduce followed by a broadcast of the result: every member
// ends with the result in out, which must hold len(in) bytes everywhere.
// A team of two exchanges instead (exchange): one hop, not two. Where the
// team's Config.Allreduce plan says so for len(in), it runs recursive
// doubling or Rabenseifner's algorithm instead (butterfly.go).
// Allreduce is the byte-level form of AllreduceValues.
func (m *Member) Allreduce(ctx context.Context, in, out []byte, op func(acc, in []byte)) error {
	if op == nil && len(in) > 0 {
		return m.fail(errNilOp)
	}
	if len(out) < len(in) {
		return m.fail(errShortOut(len(out), len(in)))
	}
	if a := m.team.cfg.Allreduce.For(len(in)); a != tree.AllreduceTrees {
		return m.butterflyAllreduce(ctx, a, in, out[:len(in)], op)
	}
	if m.pair {
		return m.exchange(ctx, in, out[:len(in)], op)
	}
	if err := m.Reduce(ctx, in, out, op); err != nil {
		return err
	}
	if m.root {
		return m.fanout(ctx, out[:len(in)])
	}
	n, err := m.relay(ctx, out)
	if err == nil && n != len(in) {
		err = m.fail(fmt.Errorf("%w: allreduce result of %d bytes, input %d", ErrMismatch, n, len(in)))
	}
	return err
}

// exchange is Allreduce for a team of two: each member sends its in to
// the other on the link it would use anyway (the root down its broadcast
// link, the other member up its reduction link), and both fold the two
// in the same order, the root's value as the accumulator, so that they
// end with the same bytes even for floating point. The two messages
// cross, so the whole takes one hop where Reduce and a broadcast take
// two. out is len(in) bytes and may be in itself.
func (m *Member) exchange(ctx context.Context, in, out []byte, op func(acc, in []byte)) error {
	if err := m.checkSize(len(in)); err != nil {
		return err
	}
	to, from := m.pairEnds()
	if err := m.send(ctx, to, in); err != nil {
		return err
	}
	n, err := m.recv(ctx, from, m.rx)
	if err != nil {
		return err
	}
	if n != len(in) {
		return m.fail(fmt.Errorf("%w: allreduce input of %d bytes from the other member, %d here", ErrMismatch, n, len(in)))
	}
	if m.root {
		copy(out, in)
		if op != nil {
			op(out, m.rx[:n])
		}
		return nil
	}
	mine := m.acc[:len(in)]
	copy(mine, in) // out may be in
	copy(out, m.rx[:n])
	if op != nil {
		op(out, mine)
	}
	return nil
}

// pairEnds returns, in a team of two, the end this member sends to the
// other on and the one it receives from: the root's broadcast and
// reduction children, the other member's reduction and broadcast parents
// (the same link, whichever way the trees point).
func (m *Member) pairEnds() (to, from end) {
	if m.root {
		return m.bkids[0], m.rkids[0]
	}
	return m.rparent, m.bparent
}
