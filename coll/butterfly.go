package coll

import (
	"context"
	"fmt"
	"math/bits"

	"github.com/plexus-hpc/plexus/tree"
)

// Recursive doubling and Rabenseifner's allreduce (tree.AllreduceDoubling,
// tree.AllreduceRabenseifner), on the butterfly's links (butterflywire.go).
//
// Members are numbered by position in the team's ascending member list;
// p is the largest power of two not above the team's size n. A member at
// position e ≥ p (an extra) sends its vector to e-p (its host) and waits
// for the result from it: the rounds run on the first p members alone.
//
// Why every member ends with the same bytes, even for floating point:
// in doubling, each round's two partners hold the same bytes after it
// because both fold with the lower position's value as the accumulator;
// in Rabenseifner, each block is folded at one member only and the
// allgather copies bytes. Hosts fold their extra's vector into their own
// the same way.
//
// Why no round waits for ever on a full link: a link direction carries,
// within one allreduce, at most one message per phase, and a member
// receives its partner's message of a round before it sends anything
// later on that link, so a sender finds at most the previous allreduce's
// last message queued ahead of its own, which its partner will read
// without waiting for the sender.

// butterfly is a member's place in the butterfly: state of the member's
// goroutine, fixed by the wiring.
type butterfly struct {
	pos, p  int
	partner []end // partner[k]: the member at pos ^ 1<<k; none for extras
	fold    end   // an extra's host, or a host's extra
	hasFold bool  // fold is set
}

// extra reports whether the member folds into a host.
func (b *butterfly) extra() bool { return b.pos >= b.p }

// butterflyAllreduce runs Allreduce with algorithm a (doubling or
// Rabenseifner); out is len(in) bytes and may be in.
func (m *Member) butterflyAllreduce(ctx context.Context, a tree.Algorithm, in, out []byte, op func(acc, in []byte)) error {
	if err := m.checkSize(len(in)); err != nil {
		return err
	}
	copy(out, in)
	if m.bf.extra() {
		return m.asExtra(ctx, out)
	}
	if err := m.foldExtra(ctx, out, op); err != nil {
		return err
	}
	var err error
	if a == tree.AllreduceRabenseifner {
		err = m.rabenseifner(ctx, out, op)
	} else {
		err = m.doubling(ctx, out, op)
	}
	if err != nil || !m.bf.hasFold {
		return err
	}
	return m.send(ctx, m.bf.fold, out)
}

// asExtra sends acc to the host and receives the result into it.
func (m *Member) asExtra(ctx context.Context, acc []byte) error {
	if err := m.send(ctx, m.bf.fold, acc); err != nil {
		return err
	}
	return m.recvExactly(ctx, m.bf.fold, acc, "allreduce result from the host")
}

// foldExtra folds the extra's vector, if the member hosts one, into acc.
func (m *Member) foldExtra(ctx context.Context, acc []byte, op func(acc, in []byte)) error {
	if !m.bf.hasFold {
		return nil
	}
	rx := m.rx[:len(acc)]
	if err := m.recvExactly(ctx, m.bf.fold, rx, "allreduce input from an extra member"); err != nil {
		return err
	}
	apply(op, acc, rx)
	return nil
}

// doubling exchanges acc with the partner of every round and folds, the
// lower position's value as the accumulator.
func (m *Member) doubling(ctx context.Context, acc []byte, op func(acc, in []byte)) error {
	rx := m.rx[:len(acc)]
	for k, e := range m.bf.partner {
		if err := m.send(ctx, e, acc); err != nil {
			return err
		}
		if err := m.recvExactly(ctx, e, rx, "allreduce input from a partner"); err != nil {
			return err
		}
		if m.bf.pos&(1<<k) == 0 {
			apply(op, acc, rx)
			continue
		}
		mine := m.acc[:len(acc)]
		copy(mine, acc)
		copy(acc, rx)
		apply(op, acc, mine)
	}
	return nil
}

// rabenseifner reduce-scatters acc by recursive halving, which leaves the
// fully folded block pos here, and allgathers the blocks by recursive
// doubling.
func (m *Member) rabenseifner(ctx context.Context, acc []byte, op func(acc, in []byte)) error {
	if err := m.reduceScatter(ctx, acc, op); err != nil {
		return err
	}
	return m.allgather(ctx, acc)
}

// reduceScatter halves the blocks this member is responsible for each
// round, from all p to block pos alone: it sends the partner the half the
// partner keeps and folds the partner's copy of the half it keeps.
func (m *Member) reduceScatter(ctx context.Context, acc []byte, op func(acc, in []byte)) error {
	lo := 0 // the member's blocks are [lo, lo+2d) before the round of distance d
	for d := m.bf.p / 2; d >= 1; d /= 2 {
		keepLo, sendLo := lo, lo+d
		if m.bf.pos&d != 0 {
			keepLo, sendLo = lo+d, lo
		}
		e := m.bf.partner[bits.TrailingZeros(uint(d))]
		if err := m.send(ctx, e, m.blocks(acc, sendLo, sendLo+d)); err != nil {
			return err
		}
		keep := m.blocks(acc, keepLo, keepLo+d)
		rx := m.rx[:len(keep)]
		if err := m.recvExactly(ctx, e, rx, "reduce-scatter block from a partner"); err != nil {
			return err
		}
		apply(op, keep, rx)
		lo = keepLo
	}
	return nil
}

// allgather doubles the member's blocks each round, from block pos to all
// p, exchanging them with the partner's, which lie next to them.
func (m *Member) allgather(ctx context.Context, acc []byte) error {
	lo := m.bf.pos // the member's blocks are [lo, lo+d) before the round of distance d
	for d := 1; d < m.bf.p; d *= 2 {
		e := m.bf.partner[bits.TrailingZeros(uint(d))]
		if err := m.send(ctx, e, m.blocks(acc, lo, lo+d)); err != nil {
			return err
		}
		theirs := lo + d
		if m.bf.pos&d != 0 {
			theirs = lo - d
		}
		if err := m.recvExactly(ctx, e, m.blocks(acc, theirs, theirs+d), "allgather block from a partner"); err != nil {
			return err
		}
		lo = min(lo, theirs)
	}
	return nil
}

// blocks returns blocks [from, to) of v, cut into p blocks at multiples of
// 64 bytes (elements divide 64 bytes, so no element is split); blocks
// past the end of a short vector are empty.
func (m *Member) blocks(v []byte, from, to int) []byte {
	return v[blockOff(len(v), m.bf.p, from):blockOff(len(v), m.bf.p, to)]
}

func blockOff(n, p, i int) int { return min(n, (i*n/p+63)&^63) }

// recvExactly receives the next message on e into buf, which it must fill.
func (m *Member) recvExactly(ctx context.Context, e end, buf []byte, what string) error {
	n, err := m.recv(ctx, e, buf)
	if err == nil && n != len(buf) {
		err = m.fail(fmt.Errorf("%w: %s of %d bytes at member %d, %d expected", ErrMismatch, what, n, m.cpu, len(buf)))
	}
	return err
}

// apply folds in into acc unless op is nil (zero payloads).
func apply(op func(acc, in []byte), acc, in []byte) {
	if op != nil {
		op(acc, in)
	}
}
