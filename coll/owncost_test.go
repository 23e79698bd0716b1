package coll

import (
	"context"
	"testing"
	"unsafe"

	"github.com/plexus-hpc/plexus/tree"
)

// readyLink is a link that never waits: every send is taken and every
// receive finds an 8-byte message. It measures what a member itself
// spends on an operation, without a transport.
type readyLink struct{}

func (readyLink) Send(context.Context, []byte) error        { return nil }
func (readyLink) TrySend([]byte) (bool, error)              { return true, nil }
func (readyLink) TryRecv([]byte) (int, bool, error)         { return 8, true, nil }
func (readyLink) Recv(context.Context, []byte) (int, error) { return 8, nil }

// BenchmarkAllreduceOwnCost times a two-member Allreduce of 8 bytes at
// one member whose links never wait: the member's own cost of the
// exchange, which a 2-rank allreduce between processes adds to the
// transport's.
func BenchmarkAllreduceOwnCost(b *testing.B) {
	m := readyMember(b)
	ctx := context.Background()
	b.Run("form=bytes", func(b *testing.B) {
		in, out := make([]byte, 8), make([]byte, 8)
		op := func(acc, in []byte) { acc[0] += in[0] }
		b.ReportAllocs()
		for b.Loop() {
			if err := m.Allreduce(ctx, in, out, op); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("form=values", func(b *testing.B) {
		in, out := []float64{1}, []float64{0}
		b.ReportAllocs()
		for b.Loop() {
			if err := AllreduceValues(ctx, m, in, out, func(a, b float64) float64 { return a + b }); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// readyMember is member 0 of a two-member team over links that never wait.
func readyMember(tb testing.TB) *Member {
	pair := &tree.Tree{Root: 0, Children: map[int][]int{0: {1}, 1: {}}}
	m, err := NewMember(Config{Broadcast: pair}, 0, func(int, Lane) (Link, error) { return readyLink{}, nil })
	if err != nil {
		tb.Fatal(err)
	}
	return m
}

// The Values functions allocate nothing once the member has run them for
// an element type (valuefold.go).
func TestValuesAllocateNothing(t *testing.T) {
	m := readyMember(t)
	ctx := context.Background()
	in, out := []float64{1}, []float64{0} // readyLink delivers 8 bytes
	sum := func(a, b float64) float64 { return a + b }
	if allocs := testing.AllocsPerRun(100, func() {
		if err := AllreduceValues(ctx, m, in, out, sum); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("AllreduceValues: %v allocations per call, want 0", allocs)
	}
	if allocs := testing.AllocsPerRun(100, func() {
		if err := ReduceValues(ctx, m, in, out, sum); err != nil {
			t.Fatal(err)
		}
	}); allocs != 0 {
		t.Errorf("ReduceValues: %v allocations per call, want 0", allocs)
	}
}

// Ends are copied on every message; a size that is a multiple of 16 bytes
// keeps the copies to whole 16-byte moves (see end).
func TestEndSize(t *testing.T) {
	if s := unsafe.Sizeof(end{}); s%16 != 0 {
		t.Errorf("end is %d bytes, want a multiple of 16: resize its padding field", s)
	}
}
