package pgas

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// TestPlan checks plan's invariants on random geometries and ranges
// against element-by-element arithmetic: every element in exactly one
// span, at its home, pieces within chunk, one rank's pieces disjoint.
func TestPlan(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := range 2000 {
		size := int64(1) << rng.IntN(4)
		block := size * int64(1+rng.IntN(9))
		if rng.IntN(3) == 0 {
			block += int64(rng.IntN(int(size))) // padding past the last element
		}
		g := geometry{lay: Layout{Block: block, Ranks: 1 + rng.IntN(5)}, per: block / size, size: size}
		g.base = int64(rng.IntN(4)) * block
		length := int64(1 + rng.IntN(200))
		start := int64(rng.IntN(int(length)))
		n := int64(rng.IntN(int(length - start + 1)))
		chunk := block * int64(1+rng.IntN(4))
		name := fmt.Sprintf("trial %d: %+v range [%d, %d) chunk %d", trial, g, start, start+n, chunk)
		checkPlan(t, name, g, start, n, chunk, plan(g, start, n, chunk))
	}
}

func checkPlan(t *testing.T, name string, g geometry, start, n, chunk int64, ps []piece) {
	t.Helper()
	seen := make([]int, n)
	last := make(map[int]int64) // end of each rank's previous piece
	for _, p := range ps {
		if p.bytes > chunk {
			t.Fatalf("%s: piece of %d bytes, chunk %d", name, p.bytes, chunk)
		}
		if end, ok := last[p.rank]; ok && p.off < end {
			t.Fatalf("%s: rank %d's piece at %d overlaps the one before, ending at %d", name, p.rank, p.off, end)
		}
		last[p.rank] = p.off + p.bytes
		for _, s := range p.spans {
			if s.off < p.off || s.off+s.n*g.size > p.off+p.bytes {
				t.Fatalf("%s: span %+v outside piece [%d, %d)", name, s, p.off, p.off+p.bytes)
			}
			for k := range s.n {
				seen[s.idx+k]++
				want := g.home(start + s.idx + k)
				if got := (Addr{p.rank, s.off + k*g.size}); got != want {
					t.Fatalf("%s: element %d at %v; want %v", name, start+s.idx+k, got, want)
				}
			}
		}
	}
	for i, c := range seen {
		if c != 1 {
			t.Fatalf("%s: element %d in %d spans", name, start+int64(i), c)
		}
	}
}

// TestPlanOnePiecePerRank: a range within a chunk per rank is one piece
// per home rank, so each home gets one request.
func TestPlanOnePiecePerRank(t *testing.T) {
	g := geometry{lay: Layout{Block: 64, Ranks: 4}, per: 8, size: 8}
	ps := plan(g, 3, 8*4*10, DefaultCacheChunk) // 41 blocks, the first and last partial
	if len(ps) != 4 {
		t.Fatalf("%d pieces; want one per rank", len(ps))
	}
	if p := ps[0]; p.rank != 0 || p.off != 24 || p.bytes != 11*64-24-40 {
		t.Errorf("rank 0's piece: %+v; want elements 3-7 of its first block to 0-2 of its 11th", p)
	}
	ps = plan(g, 0, 8*4*10, DefaultCacheChunk)
	for r, p := range ps {
		if p.rank != r || p.off != 0 || p.bytes != 640 {
			t.Errorf("piece %d: rank %d, bytes [%d, %d); want rank %d, [0, 640)", r, p.rank, p.off, p.off+p.bytes, r)
		}
	}
}

// TestPackUnpack round-trips elements through a put's bytes and back.
func TestPackUnpack(t *testing.T) {
	g := geometry{lay: Layout{Block: 20, Ranks: 3}, per: 2, size: 8} // 4 bytes of padding per block
	data := make([]int64, 25)
	for i := range data {
		data[i] = int64(i*i) - 100
	}
	back := make([]int64, len(data))
	for _, p := range plan(g, 0, int64(len(data)), 60) {
		b := pack(nil, data, p, g.size)
		if len(b) != putHead+int(p.bytes) {
			t.Fatalf("put of %d bytes; want %d", len(b), putHead+p.bytes)
		}
		unpack(back, p, b[putHead:], g.size)
	}
	for i := range data {
		if back[i] != data[i] {
			t.Fatalf("element %d: %d after a round trip; want %d", i, back[i], data[i])
		}
	}
}
