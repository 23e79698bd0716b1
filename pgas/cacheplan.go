package pgas

import (
	"encoding/binary"
	"unsafe"
)

// A cache moves a range of an array as pieces: one message each, to or
// from one home rank. The pieces are computed by pure arithmetic.
//
// Invariants of plan's result: every element of the range is in exactly
// one span; a piece's spans are in increasing order of offset and lie in
// [off, off+bytes); bytes <= chunk unless one span alone is longer; the
// pieces of one rank are in increasing order of offset and disjoint.
//
// Consecutive blocks of an array on one rank are consecutive blocks of
// that rank's heap (block b of the linear heap is block b div ranks of
// its home), so a range's part on one home is one run of its memory,
// with gaps only where a block has padding past its last element: a
// piece is one contiguous get or put.

// geometry is where an array's elements are.
type geometry struct {
	lay  Layout
	base int64 // the array's offset on every rank
	per  int64 // elements per block
	size int64 // bytes per element
}

// span is elements [idx, idx+n) of a cached range, counted from its
// start, at byte offset off of their home's heap.
type span struct{ idx, n, off int64 }

// piece is one message: bytes [off, off+bytes) of rank's heap, holding
// spans.
type piece struct {
	rank       int
	off, bytes int64
	spans      []span
}

// home returns where element i of the array lives.
func (g geometry) home(i int64) Addr {
	lin := g.base*int64(g.lay.Ranks) + i/g.per*g.lay.Block + i%g.per*g.size
	return g.lay.Home(lin)
}

// plan cuts elements [start, start+n) into pieces of at most chunk bytes
// each, block by block, joining the spans of one rank while they fit.
func plan(g geometry, start, n, chunk int64) []piece {
	var ps []piece
	open := make([]int, g.lay.Ranks) // each rank's last piece in ps, +1; 0 when none
	for b := start / g.per; n > 0 && b <= (start+n-1)/g.per; b++ {
		i0, i1 := max(start, b*g.per), min(start+n, (b+1)*g.per)
		a := g.home(i0)
		s := span{idx: i0 - start, n: i1 - i0, off: a.Offset}
		end := s.off + s.n*g.size
		if k := open[a.Rank] - 1; k >= 0 && end-ps[k].off <= chunk {
			ps[k].spans = append(ps[k].spans, s)
			ps[k].bytes = end - ps[k].off
			continue
		}
		ps = append(ps, piece{rank: a.Rank, off: s.off, bytes: end - s.off, spans: []span{s}})
		open[a.Rank] = len(ps)
	}
	return ps
}

// unpack copies a piece's bytes, as a get returned them, into data.
func unpack[T Number](data []T, p piece, b []byte, size int64) {
	for _, s := range p.spans {
		at := s.off - p.off
		fromBytes(data[s.idx:s.idx+s.n], b[at:at+s.n*size])
	}
}

// pack appends a put of the piece, taking its elements from data; the
// gaps between spans (padding) are zero.
func pack[T Number](b []byte, data []T, p piece, size int64) []byte {
	b = binary.LittleEndian.AppendUint64(b, uint64(p.off))
	head := len(b)
	b = append(b, make([]byte, p.bytes)...)
	for _, s := range p.spans {
		at := int64(head) + s.off - p.off
		toBytes(b[at:at+s.n*size], data[s.idx:s.idx+s.n])
	}
	return b
}

// littleEndian is whether this machine stores numbers as the heap does:
// then a []T's memory is its heap bytes, and copies need no conversion.
var littleEndian = binary.NativeEndian.Uint16([]byte{1, 0}) == 1

// fromBytes sets dst from the heap bytes b, len(dst) elements of them.
func fromBytes[T Number](dst []T, b []byte) {
	if littleEndian {
		copy(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(dst))), len(b)), b)
		return
	}
	size := len(b) / max(len(dst), 1)
	for i := range dst {
		dst[i] = get[T](b[i*size:])
	}
}

// toBytes stores src as heap bytes in b.
func toBytes[T Number](b []byte, src []T) {
	if littleEndian {
		copy(b, unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(src))), len(b)))
		return
	}
	size := len(b) / max(len(src), 1)
	for i, v := range src {
		put(b[i*size:(i+1)*size], v)
	}
}
