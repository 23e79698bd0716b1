package comm

import (
	"context"
	"testing"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// BenchmarkReceivePath measures comm's receive side of the message-rate
// pattern with no transport in the way: one goroutine posts a window of 64
// Irecvs of 8 bytes, delivers 64 eager frames to the world as a
// transport's receive path does (World.deliver), waits for all and frees
// them. ns/op is per message: what a receiving rank spends in comm on
// each, the part of its message rate that is not the transport's. The
// expected case posts first; the unexpected case delivers first.
func BenchmarkReceivePath(b *testing.B) {
	for _, c := range []struct {
		name        string
		deliverLast bool
	}{{"expected", true}, {"unexpected", false}} {
		b.Run(c.name, func(b *testing.B) {
			w := makers["twin"](b, 2, Config{}).ws[1]
			receivePath(b, w, c.deliverLast)
		})
	}
}

func receivePath(b *testing.B, w *World, deliverLast bool) {
	const win = 64
	ctx := context.Background()
	reqs := make([]*Request, win)
	buf, payload := make([]byte, 8), make([]byte, 8)
	h := frame.Header{Kind: frame.Eager, Tag: 1}
	deliverAll := func() {
		for range win {
			w.deliver(0, h, payload)
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for n := 0; n < b.N; n += win {
		if !deliverLast {
			deliverAll()
		}
		for i := range reqs {
			var err error
			if reqs[i], err = w.Irecv(0, 1, buf); err != nil {
				b.Fatal(err)
			}
		}
		if deliverLast {
			deliverAll()
		}
		if err := WaitallInto(ctx, nil, reqs...); err != nil {
			b.Fatal(err)
		}
		Free(reqs...)
	}
}
