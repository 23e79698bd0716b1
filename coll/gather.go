package coll

import (
	"context"
	"encoding/binary"
	"fmt"
)

// A gather runs up the reduction tree. Each member sends its parent one
// stream: a header message of 8 bytes (the number of blocks, then the
// block length, both uint32 little-endian), then that many records — a
// member id (uint32 little-endian) and the member's block — concatenated
// and cut into messages of at most MaxMessage bytes. A member reads every
// child's header, sends its own (its children's counts plus one), then
// its own record, then each child's stream in turn, re-cut: so blocks of
// any size flow through members that hold one message at a time, and only
// the root holds them all, in out, in member order.

// gatherHeader is the length of a stream's header message.
const gatherHeader = 8

// Gather collects every member's in at the root: out[i*len(in):] gets
// the block of the i-th member in increasing id order (Team.Members'
// order; for a team made by NewMember, the trees' Members). Every member
// must pass an in of the same length; out must hold size × len(in) bytes
// at the root and is untouched elsewhere.
func (m *Member) Gather(ctx context.Context, in, out []byte) error {
	ids := m.team.cfg.Broadcast.Members()
	if m.root && len(out) < len(ids)*len(in) {
		return m.fail(errShortOut(len(out), len(ids)*len(in)))
	}
	counts, err := m.gatherHeaders(ctx, len(in))
	if err != nil {
		return err
	}
	total := 1
	for _, c := range counts {
		total += c
	}
	var s blockSink
	if m.root {
		if total != len(ids) {
			return m.fail(fmt.Errorf("%w: gather of %d blocks in a team of %d", ErrMismatch, total, len(ids)))
		}
		s = &placer{out: out, ids: ids, size: len(in), seen: make([]bool, len(ids))}
	} else {
		var h [gatherHeader]byte
		binary.LittleEndian.PutUint32(h[:], uint32(total))
		binary.LittleEndian.PutUint32(h[4:], uint32(len(in)))
		if err := m.send(ctx, m.rparent, h[:]); err != nil {
			return err
		}
		s = &streamer{m: m, ctx: ctx, buf: m.acc}
	}
	return m.fail(m.gatherBlocks(ctx, s, in, counts))
}

// gatherHeaders reads every reduction child's header and returns the
// children's block counts, in m.pending's storage.
func (m *Member) gatherHeaders(ctx context.Context, size int) ([]int, error) {
	counts := m.pending[:0]
	for _, c := range m.rkids {
		n, err := m.recv(ctx, c, m.rx)
		if err != nil {
			return nil, err
		}
		if n != gatherHeader || int(binary.LittleEndian.Uint32(m.rx[4:])) != size {
			return nil, m.fail(fmt.Errorf("%w: gather header of %d bytes from a child, blocks of %d here",
				ErrMismatch, n, size))
		}
		counts = append(counts, int(binary.LittleEndian.Uint32(m.rx)))
	}
	return counts, nil
}

// gatherBlocks writes the member's own record, then every child's stream,
// to s.
func (m *Member) gatherBlocks(ctx context.Context, s blockSink, in []byte, counts []int) error {
	var id [4]byte
	binary.LittleEndian.PutUint32(id[:], uint32(m.cpu))
	if err := s.write(id[:]); err != nil {
		return err
	}
	if err := s.write(in); err != nil {
		return err
	}
	for i, c := range m.rkids {
		if err := m.relayStream(ctx, s, c, counts[i]*(4+len(in))); err != nil {
			return err
		}
	}
	return s.flush()
}

// relayStream passes the next left bytes of child c's stream to s.
func (m *Member) relayStream(ctx context.Context, s blockSink, c end, left int) error {
	for left > 0 {
		n, err := m.recv(ctx, c, m.rx)
		if err != nil {
			return err
		}
		if n == 0 || n > left {
			return fmt.Errorf("%w: gather message of %d bytes from a child, %d bytes due", ErrMismatch, n, left)
		}
		if err := s.write(m.rx[:n]); err != nil {
			return err
		}
		left -= n
	}
	return nil
}

// Allgather is Gather followed by a broadcast of the result: every member
// ends with every block in out, which must hold size × len(in) bytes
// everywhere. The result goes down the broadcast tree in messages of at
// most MaxMessage bytes.
func (m *Member) Allgather(ctx context.Context, in, out []byte) error {
	total := len(m.team.cfg.Broadcast.Members()) * len(in)
	if len(out) < total {
		return m.fail(errShortOut(len(out), total))
	}
	if err := m.Gather(ctx, in, out); err != nil {
		return err
	}
	for off := 0; off < total; off += len(m.rx) {
		chunk := out[off:min(total, off+len(m.rx))]
		if m.root {
			if err := m.fanout(ctx, chunk); err != nil {
				return err
			}
			continue
		}
		n, err := m.relay(ctx, chunk)
		if err == nil && n != len(chunk) {
			err = m.fail(fmt.Errorf("%w: allgather message of %d bytes, %d expected", ErrMismatch, n, len(chunk)))
		}
		if err != nil {
			return err
		}
	}
	return nil
}
