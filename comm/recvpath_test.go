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
// expected case posts first; the unexpected case delivers first; the
// runs case posts first and delivers in runs of 22 (World.deliverRun), as
// shared memory does a bundle of 8-byte messages.
func BenchmarkReceivePath(b *testing.B) {
	for _, c := range []struct {
		name        string
		deliverLast bool
		run         int
	}{{"expected", true, 1}, {"unexpected", false, 1}, {"runs", true, 22}} {
		b.Run(c.name, func(b *testing.B) {
			w := makers["twin"](b, 2, Config{}).ws[1]
			receivePath(b, w, c.deliverLast, c.run)
		})
	}
}

func receivePath(b *testing.B, w *World, deliverLast bool, run int) {
	const win = 64
	ctx := context.Background()
	reqs := make([]*Request, win)
	buf, payload := make([]byte, 8), make([]byte, 8)
	h := frame.Header{Kind: frame.Eager, Tag: 1}
	payloads := make([][]byte, run)
	for i := range payloads {
		payloads[i] = payload
	}
	deliverAll := func() {
		for i := 0; i < win; i += run {
			if run == 1 {
				w.deliver(0, h, payload)
			} else {
				w.deliverRun(0, h, payloads[:min(run, win-i)])
			}
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
