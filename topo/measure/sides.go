package measure

import (
	"context"
	"fmt"
)

// msgSize is the payload of every benchmark message: one word, like the
// small control messages Smelt's trees carry.
const msgSize = 8

// sender is the sending side's loop; it must run only on the goroutine
// pinned to the sending CPU. Each repetition has three phases: a timed
// batch of sends, an untimed batch the receiver times, and a timed round
// trip.
func (p *pairRun) sender(ctx context.Context) error {
	msg, ack := make([]byte, msgSize), make([]byte, msgSize)
	for k := range p.cfg.Warmup + p.cfg.Reps {
		keep := k >= p.cfg.Warmup
		t, err := p.sendBatch(msg)
		if err != nil {
			return err
		}
		if err := p.awaitAck(ctx, ack); err != nil {
			return err
		}
		if _, err := p.sendBatch(msg); err != nil {
			return err
		}
		p.queued.Store(int64(k + 1))
		if err := p.awaitAck(ctx, ack); err != nil {
			return err
		}
		rtt, err := p.roundTrip(ctx, msg, ack)
		if err != nil {
			return err
		}
		if keep {
			p.out.send = append(p.out.send, t)
			p.out.rtt = append(p.out.rtt, rtt)
		}
	}
	return nil
}

// sendBatch sends Batch messages back to back and returns the time per
// message in nanoseconds.
func (p *pairRun) sendBatch(msg []byte) (float64, error) {
	start := p.now()
	for range p.cfg.Batch {
		if ok, err := p.tx.TrySend(msg); !ok || err != nil {
			return 0, sendFailed(err)
		}
	}
	return float64(p.now()-start) / float64(p.cfg.Batch), nil
}

// roundTrip sends one message, waits for the echo and returns the time.
func (p *pairRun) roundTrip(ctx context.Context, msg, buf []byte) (float64, error) {
	start := p.now()
	if ok, err := p.tx.TrySend(msg); !ok || err != nil {
		return 0, sendFailed(err)
	}
	if err := recvOne(ctx, p.tx, buf); err != nil {
		return 0, err
	}
	return float64(p.now() - start), nil
}

func (p *pairRun) awaitAck(ctx context.Context, buf []byte) error {
	return recvOne(ctx, p.tx, buf)
}

// receiver is the receiving side's loop; it must run only on the goroutine
// pinned to the receiving CPU. It mirrors sender's three phases.
func (p *pairRun) receiver(ctx context.Context) error {
	buf, ack := make([]byte, msgSize), make([]byte, msgSize)
	for k := range p.cfg.Warmup + p.cfg.Reps {
		for range p.cfg.Batch {
			if err := recvOne(ctx, p.rx, buf); err != nil {
				return err
			}
		}
		if err := p.reply(ack); err != nil {
			return err
		}
		t, err := p.recvQueued(ctx, k+1, buf)
		if err != nil {
			return err
		}
		if err := p.reply(ack); err != nil {
			return err
		}
		if err := recvOne(ctx, p.rx, buf); err != nil {
			return err
		}
		if err := p.reply(ack); err != nil {
			return err
		}
		if k >= p.cfg.Warmup {
			p.out.recv = append(p.out.recv, t)
		}
	}
	return nil
}

// recvQueued waits, untimed, until the sender has enqueued repetition k's
// batch, then times receiving it and returns the time per message.
func (p *pairRun) recvQueued(ctx context.Context, k int, buf []byte) (float64, error) {
	if err := spin(ctx, func() bool { return p.queued.Load() == int64(k) }); err != nil {
		return 0, err
	}
	start := p.now()
	for range p.cfg.Batch {
		if _, ok, err := p.rx.TryRecv(buf); !ok || err != nil {
			return 0, recvFailed(err)
		}
	}
	return float64(p.now()-start) / float64(p.cfg.Batch), nil
}

func (p *pairRun) reply(msg []byte) error {
	if ok, err := p.rx.TrySend(msg); !ok || err != nil {
		return sendFailed(err)
	}
	return nil
}

// recvOne spins until one message arrives on e. It is spin with the poll
// written out, so that the hot loop allocates no closure.
func recvOne(ctx context.Context, e endpoint, buf []byte) error {
	done := ctx.Done()
	for i := 1; ; i++ {
		if _, ok, err := e.TryRecv(buf); ok || err != nil {
			return err
		}
		if i%spinCheck == 0 {
			select {
			case <-done:
				return context.Cause(ctx)
			default:
			}
		}
	}
}

func sendFailed(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: ring full on send", errProtocol)
}

func recvFailed(err error) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("%w: a message signalled as queued was not there", errProtocol)
}
