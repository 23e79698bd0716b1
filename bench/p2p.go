package bench

import (
	"context"
	"encoding/binary"
	"runtime"
	"sync/atomic"

	"github.com/plexus-hpc/plexus/ring"
)

// Point-to-point patterns between two pinned members: round trips
// (pingpong) and one-way streams of 8-byte messages.

// paddedWord is an atomic word alone on its cache line, so the ping-pong
// floor measures one line bouncing between two cores and nothing else.
type paddedWord struct {
	_ [64]byte
	v atomic.Uint64
	_ [56]byte
}

// spinUntil spins until cond holds, yielding now and then so a member that
// shares a CPU with its peer still makes progress.
func spinUntil(cond func() bool) {
	for i := 1; !cond(); i++ {
		if i%4096 == 0 {
			runtime.Gosched()
		}
	}
}

// atomicPingPong: member 0 writes odd values, member 1 answers with even.
func atomicPingPong() (body, func(), error) {
	w := new(paddedWord)
	return func(i, it int) error {
		ping, pong := uint64(2*it+1), uint64(2*it+2)
		if i == 0 {
			w.v.Store(ping)
			spinUntil(func() bool { return w.v.Load() == pong })
		} else {
			spinUntil(func() bool { return w.v.Load() == ping })
			w.v.Store(pong)
		}
		return nil
	}, func() {}, nil
}

// ringPingPong bounces an 8-byte message over a ring queue pair.
func ringPingPong(ctx context.Context) func() (body, func(), error) {
	return func() (body, func(), error) {
		a, b := ring.NewPairs(64)
		ends := []*ring.Pair{a, b}
		bufs := [2][8]byte{}
		return func(i, it int) error {
			p, buf := ends[i], bufs[i][:]
			if i == 0 {
				binary.LittleEndian.PutUint64(buf, uint64(it))
				if err := p.Send(ctx, buf); err != nil {
					return err
				}
				_, err := p.Recv(ctx, buf)
				return err
			}
			if _, err := p.Recv(ctx, buf); err != nil {
				return err
			}
			return p.Send(ctx, buf)
		}, func() {}, nil
	}
}

// chanPingPong bounces a value over two unbuffered channels.
func chanPingPong() (body, func(), error) {
	ping, pong := make(chan uint64), make(chan uint64)
	return func(i, it int) error {
		if i == 0 {
			ping <- uint64(it)
			<-pong
		} else {
			pong <- <-ping
		}
		return nil
	}, func() {}, nil
}

// ringStream sends 8-byte messages one way; member 1 checks their order.
func ringStream(ctx context.Context) func() (body, func(), error) {
	return func() (body, func(), error) {
		a, b := ring.NewPairs(streamSlots)
		var tx, rx [8]byte
		return func(i, it int) error {
			if i == 0 {
				binary.LittleEndian.PutUint64(tx[:], uint64(it))
				return a.Send(ctx, tx[:])
			}
			if _, err := b.Recv(ctx, rx[:]); err != nil {
				return err
			}
			return checkSeq(binary.LittleEndian.Uint64(rx[:]), it)
		}, func() {}, nil
	}
}

// streamSlots is the ring depth for streaming, and the channel buffer it
// is compared with.
const streamSlots = 256

// chanStream is the same over a buffered channel of the same depth.
func chanStream() (body, func(), error) {
	c := make(chan uint64, streamSlots)
	return func(i, it int) error {
		if i == 0 {
			c <- uint64(it)
			return nil
		}
		return checkSeq(<-c, it)
	}, func() {}, nil
}
