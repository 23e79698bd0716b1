package collective

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/plexus-hpc/plexus/internal/roundrobin"
)

// warmups are untimed round trips before each pair's samples: the first
// messages also open connections and fill caches.
const warmups = 3

// partner returns rank's partner in round r of a round-robin tournament
// among n ranks, or -1 when rank sits the round out: in each round every
// rank has at most one partner, so all ranks time their pairs at once.
func partner(rank, r, n int) int { return roundrobin.Partner(rank, r, n) }

// rounds is the number of tournament rounds among n ranks.
func rounds(n int) int { return roundrobin.Rounds(n) }

// measure times this rank's pairs, round by round, and returns its hello.
func (c *Comm) measure(ctx context.Context) (hello, error) {
	h := hello{Host: c.cfg.Host}
	me, n := c.w.Rank(), c.w.Size()
	for r := range rounds(n) {
		p := partner(me, r, n)
		if p < 0 {
			continue
		}
		if p < me {
			if err := c.echo(ctx, p); err != nil {
				return h, err
			}
			continue
		}
		send, rtt, err := c.time(ctx, p)
		if err != nil {
			return h, err
		}
		h.Peers, h.Send, h.RTT = append(h.Peers, p), append(h.Send, send), append(h.RTT, rtt)
	}
	return h, nil
}

// time runs the timed side of a ping-pong with peer and returns the
// median time of a Send call and of a round trip, in nanoseconds.
func (c *Comm) time(ctx context.Context, peer int) (send, rtt float64, err error) {
	l, err := c.link(peer)
	if err != nil {
		return 0, 0, err
	}
	var buf [8]byte
	sends := make([]float64, 0, c.cfg.Samples)
	rtts := make([]float64, 0, c.cfg.Samples)
	for i := range warmups + c.cfg.Samples {
		t0 := time.Now()
		if err := l.Send(ctx, buf[:]); err != nil {
			return 0, 0, err
		}
		t1 := time.Now()
		if _, err := l.Recv(ctx, buf[:]); err != nil {
			return 0, 0, err
		}
		if i >= warmups {
			sends = append(sends, float64(t1.Sub(t0)))
			rtts = append(rtts, float64(time.Since(t0)))
		}
	}
	return median(sends), median(rtts), nil
}

// echo answers peer's ping-pong.
func (c *Comm) echo(ctx context.Context, peer int) error {
	l, err := c.link(peer)
	if err != nil {
		return err
	}
	var buf [8]byte
	for range warmups + c.cfg.Samples {
		n, err := l.Recv(ctx, buf[:])
		if err != nil {
			return err
		}
		if n != len(buf) {
			return fmt.Errorf("collective: ping of %d bytes from rank %d during measurement", n, peer)
		}
		if err := l.Send(ctx, buf[:]); err != nil {
			return err
		}
	}
	return nil
}

// median returns the median of xs, which it sorts; the median rather than
// the mean, because one descheduled sample on a shared machine can be a
// thousand times the others.
func median(xs []float64) float64 {
	slices.Sort(xs)
	return xs[len(xs)/2]
}
