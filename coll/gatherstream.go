package coll

import (
	"context"
	"encoding/binary"
	"fmt"
	"slices"
)

// blockSink takes a gather stream's records (see gather.go), in pieces
// cut anywhere. Both kinds belong to one member's goroutine.
type blockSink interface {
	write(p []byte) error
	flush() error
}

// streamer re-cuts the stream into messages of len(buf) bytes to the
// member's reduction parent.
type streamer struct {
	m   *Member
	ctx context.Context
	buf []byte
	n   int
}

func (s *streamer) write(p []byte) error {
	for len(p) > 0 {
		k := copy(s.buf[s.n:], p)
		s.n += k
		p = p[k:]
		if s.n == len(s.buf) {
			if err := s.flush(); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *streamer) flush() error {
	if s.n == 0 {
		return nil
	}
	n := s.n
	s.n = 0
	return s.m.send(s.ctx, s.m.rparent, s.buf[:n])
}

// placer is the root's sink: it parses records and copies each block to
// its member's place in out, refusing unknown and repeated members.
//
// Invariants: hdr[:hn] is the part of the current record's id seen so
// far; once hn is 4, the block goes to out[pos+off:], off bytes of it
// done.
type placer struct {
	out  []byte
	ids  []int // member ids, increasing
	size int   // block length
	seen []bool

	hdr      [4]byte
	hn       int
	pos, off int
}

func (p *placer) write(b []byte) error {
	for len(b) > 0 {
		if p.hn < 4 {
			k := copy(p.hdr[p.hn:], b)
			p.hn += k
			b = b[k:]
			if p.hn < 4 {
				return nil
			}
			if err := p.start(); err != nil {
				return err
			}
		}
		k := copy(p.out[p.pos+p.off:p.pos+p.size], b)
		p.off += k
		b = b[k:]
		if p.off == p.size {
			p.hn, p.off = 0, 0
		}
	}
	return nil
}

// start begins the record whose id hdr holds.
func (p *placer) start() error {
	id := binary.LittleEndian.Uint32(p.hdr[:])
	i, ok := slices.BinarySearch(p.ids, int(id))
	if !ok || p.seen[i] {
		return fmt.Errorf("%w: gather block of member %d, which is not in the team or came twice", ErrMismatch, id)
	}
	p.seen[i] = true
	p.pos = i * p.size
	return nil
}

func (p *placer) flush() error { return nil }
