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
	pair := &tree.Tree{Root: 0, Children: map[int][]int{0: {1}, 1: {}}}
	m, err := NewMember(Config{Broadcast: pair}, 0, func(int, Lane) (Link, error) { return readyLink{}, nil })
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	in, out := make([]byte, 8), make([]byte, 8)
	op := func(acc, in []byte) { acc[0] += in[0] }
	b.ReportAllocs()
	for b.Loop() {
		if err := m.Allreduce(ctx, in, out, op); err != nil {
			b.Fatal(err)
		}
	}
}

// Ends are copied on every message; a size that is a multiple of 16 bytes
// keeps the copies to whole 16-byte moves (see end).
func TestEndSize(t *testing.T) {
	if s := unsafe.Sizeof(end{}); s%16 != 0 {
		t.Errorf("end is %d bytes, want a multiple of 16", s)
	}
}
