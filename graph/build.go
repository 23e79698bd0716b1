package graph

import (
	"context"
	"encoding/binary"
	"sync"

	"github.com/plexus-hpc/plexus/am"
)

// sender packs pairs per home rank into batches of up to Batch pairs
// and Posts each full batch to handler id there; pairs for this rank go
// straight to its inbox. One sender belongs to one goroutine.
type sender struct {
	d    *Dist
	id   am.ID
	self *inbox
	buf  [][]byte
	err  error
}

func (d *Dist) newSender(id am.ID, self *inbox) *sender {
	return d.newSenderOf(id, self, d.cfg.Batch)
}

// newSenderOf makes a sender of batches of the given pairs.
func (d *Dist) newSenderOf(id am.ID, self *inbox, pairs int) *sender {
	s := &sender{d: d, id: id, self: self, buf: make([][]byte, d.ranks)}
	for r := range s.buf {
		s.buf[r] = make([]byte, 0, 8*pairs)
	}
	return s
}

func (s *sender) send(ctx context.Context, home int, a, b uint32) {
	s.buf[home] = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(s.buf[home], a), b)
	if len(s.buf[home]) == cap(s.buf[home]) {
		s.flush(ctx, home)
	}
}

func (s *sender) flush(ctx context.Context, home int) {
	b := s.buf[home]
	if len(b) == 0 || s.err != nil {
		return
	}
	if home == s.d.rank {
		pairs := make([]uint32, len(b)/4)
		for i := range pairs {
			pairs[i] = binary.LittleEndian.Uint32(b[4*i:])
		}
		s.self.put(pairs)
	} else {
		s.err = s.d.e.Post(ctx, home, s.id, b)
		s.self.posted(home, int64(len(b)/8))
	}
	s.buf[home] = b[:0]
}

// close sends what is left and returns the first error.
func (s *sender) close(ctx context.Context) error {
	for r := range s.buf {
		s.flush(ctx, r)
	}
	return s.err
}

// Build generates this rank's share of k's edges on Threads goroutines,
// sends each edge to its endpoints' homes and builds the local
// adjacency lists. It is collective.
func (d *Dist) Build(ctx context.Context, k *Kronecker) error {
	lo, hi := k.Share(d.rank, d.ranks)
	t := int64(d.cfg.Threads)
	errs := make([]error, t)
	var wg sync.WaitGroup
	for i := range t {
		wg.Go(func() {
			s := d.newSender(d.idEdge, &d.edges)
			for j := lo + (hi-lo)*i/t; j < lo+(hi-lo)*(i+1)/t && s.err == nil; j++ {
				u, v := k.Edge(j)
				s.send(ctx, d.Home(u), uint32(u), uint32(v))
				if u != v {
					s.send(ctx, d.Home(v), uint32(v), uint32(u))
				}
			}
			errs[i] = s.close(ctx)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	if err := d.deliver(ctx, &d.edges); err != nil {
		return err
	}
	d.g = d.csr(d.edges.take())
	return nil
}

// csr builds the local lists from received (source, target) pairs.
func (d *Dist) csr(batches [][]uint32) CSR {
	g := CSR{Lo: d.lo, Off: make([]int64, d.hi-d.lo+1)}
	for _, b := range batches {
		for i := 0; i < len(b); i += 2 {
			g.Off[int64(b[i])-d.lo+1]++
		}
	}
	for i := 1; i < len(g.Off); i++ {
		g.Off[i] += g.Off[i-1]
	}
	g.Nbr = make([]uint32, g.Off[len(g.Off)-1])
	fill := append([]int64(nil), g.Off[:len(g.Off)-1]...)
	for bi, b := range batches {
		for i := 0; i < len(b); i += 2 {
			u := int64(b[i]) - d.lo
			g.Nbr[fill[u]] = b[i+1]
			fill[u]++
		}
		batches[bi] = nil // let the memory go as the lists fill
	}
	return g
}
