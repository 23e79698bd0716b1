package p2prank

import (
	"time"

	"github.com/plexus-hpc/plexus/bench"
	"github.com/plexus-hpc/plexus/comm"
)

// latency is the ping-pong between ranks 0 and 1; ranks above 1 only
// join the barriers.
func (r *rank) latency() error {
	for _, size := range r.o.sizes {
		iters := bench.ScaledIters(r.o.base, size)
		buf := newBuf(size)
		d, err := r.timed(iters, func(n int) error { return r.pingpong(buf, n) })
		if err == nil {
			err = r.emit("latency", size, iters, micros(d)/float64(2*iters))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// timed runs f's warm-up and then times n iterations, after a barrier.
func (r *rank) timed(n int, f func(n int) error) (time.Duration, error) {
	if err := r.barrier(); err != nil {
		return 0, err
	}
	if err := r.heat(func() error { return f(bench.WarmupIters(n)) }); err != nil {
		return 0, err
	}
	if err := f(bench.WarmupIters(n)); err != nil {
		return 0, err
	}
	start := time.Now()
	err := f(n)
	return time.Since(start), err
}

// pingpong runs n round trips between ranks 0 and 1 on tagPing.
func (r *rank) pingpong(buf []byte, n int) error {
	return r.pingpongTag(r.ctx, tagPing, buf, buf, n)
}

func (r *rank) bandwidth() error {
	for _, size := range r.o.sizes {
		iters := bench.ScaledIters(r.o.base, size)
		buf := newBuf(size)
		d, err := r.timed(iters, func(n int) error { return r.windows(buf, n) })
		if err == nil {
			mb := float64(size) * float64(r.o.window*iters) / 1e6
			err = r.emit("bandwidth", size, iters, mb/d.Seconds())
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *rank) msgrate() error {
	buf := make([]byte, 8)
	d, err := r.timed(r.o.base, func(n int) error { return r.windows(buf, n) })
	if err != nil {
		return err
	}
	return r.emit("msgrate", 8, r.o.base, float64(r.o.window*r.o.base)/d.Seconds())
}

// windows streams n windows of non-blocking sends from rank 0 to rank 1,
// each acknowledged, as the C programs do. The window's receives share one
// buffer, as in the OSU tests: the contents are not looked at; nor are
// the statuses (the C programs pass MPI_STATUSES_IGNORE).
func (r *rank) windows(buf []byte, n int) error {
	reqs := make([]*comm.Request, r.o.window)
	ack := make([]byte, 4)
	for range n {
		var err error
		switch r.w.Rank() {
		case 0:
			err = r.sendWindow(buf, ack, reqs)
		case 1:
			err = r.recvWindow(buf, ack, reqs)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (r *rank) sendWindow(buf, ack []byte, reqs []*comm.Request) error {
	for i := range reqs {
		var err error
		if reqs[i], err = r.w.Isend(1, tagWindow, buf); err != nil {
			return err
		}
	}
	if err := comm.WaitallInto(r.ctx, nil, reqs...); err != nil {
		return err
	}
	comm.Free(reqs...) // finished: MPI_Waitall frees them too
	_, err := r.w.Recv(r.ctx, 1, tagAck, ack)
	return err
}

func (r *rank) recvWindow(buf, ack []byte, reqs []*comm.Request) error {
	for i := range reqs {
		var err error
		if reqs[i], err = r.w.Irecv(0, tagWindow, buf); err != nil {
			return err
		}
	}
	if err := comm.WaitallInto(r.ctx, nil, reqs...); err != nil {
		return err
	}
	comm.Free(reqs...) // finished: MPI_Waitall frees them too
	return r.w.Send(r.ctx, 0, tagAck, ack)
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }

// newBuf returns a buffer of size bytes, every page of it touched, as
// bench/peers' alloc_buf fills its buffers: untouched pages would be
// faulted in by the first messages.
func newBuf(size int) []byte {
	b := make([]byte, size)
	for i := range b {
		b[i] = 'a'
	}
	return b
}
