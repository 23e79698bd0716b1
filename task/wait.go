package task

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/plexus-hpc/plexus/am"
	"github.com/plexus-hpc/plexus/comm"
)

// detect runs the master's waves until two consecutive ones prove that
// g finished, or a rank is lost or gone; it sends the outcome to the
// other ranks and returns it as an error.
func (p *Pool) detect(ctx context.Context, g *group) error {
	var prev []report
	for fails := 0; ; fails++ {
		if !settled(prev) {
			if err := p.pause(ctx, g, fails); err != nil {
				return p.abandon(ctx, g.id)
			}
			if h := p.hintWave(g); h != nil {
				prev = h
			}
		}
		cur, err := p.wave(ctx, g.id)
		if err != nil {
			switch {
			case ctx.Err() != nil || p.ctx.Err() != nil:
				return p.abandon(ctx, g.id)
			case errors.Is(err, comm.ErrPeerLost):
				return p.decide(g.id, lostOutcome(err))
			}
			// The engine failed otherwise (closed under the pool, say):
			// this rank cannot go on, and the others must not wait.
			_ = p.decide(g.id, outcome{state: stateAbandoned, rank: p.Rank(), text: err.Error()})
			return err
		}
		if r := firstGone(cur); r >= 0 {
			return p.decide(g.id, outcome{state: stateAbandoned, rank: r, text: fmt.Sprintf("rank %d's Wait ended", r)})
		}
		if terminated(prev, cur) {
			o := outcome{state: stateDone, rank: -1}
			if text, r := firstError(cur); r >= 0 {
				o = outcome{state: stateFailed, rank: r, text: text}
			}
			return p.decide(g.id, o)
		}
		prev = cur
	}
}

// abandon ends the master's Wait when its ctx ended or the pool closed:
// the other ranks are told, in the background since ctx is over, that
// the group cannot finish, so that their Waits do not hang.
func (p *Pool) abandon(ctx context.Context, id uint64) error {
	o := outcome{state: stateAbandoned, rank: p.Rank(), text: fmt.Sprintf("rank %d's Wait ended", p.Rank())}
	if p.ctx.Err() == nil {
		go p.decide(id, o) //nolint:errcheck // o is the error; decide's calls end with the pool
	}
	return p.stopped(ctx)
}

// pause waits before the next wave, after one that found a rank busy:
// until g's tasks here run out or another rank's hint says its did
// (handleIdle), which is when the next wave can find more, or, should no
// hint come, until waveFallback(fails) has passed. Waiting on the event
// rather than on a short backoff matters on an idle rank: Go sleeps in
// its network poller in whole milliseconds, so a timer of tens of
// microseconds fires about a millisecond late, and each level of a
// level-synchronous search paid a few of them.
func (p *Pool) pause(ctx context.Context, g *group, fails int) error {
	t := time.NewTimer(waveFallback(fails))
	defer t.Stop()
	select {
	case <-g.idle:
	case <-t.C:
	case <-ctx.Done():
		return ctx.Err()
	case <-p.ctx.Done():
		return ErrClosed
	}
	return nil
}

// wave asks every rank for its report on group id, all at once.
func (p *Pool) wave(ctx context.Context, id uint64) ([]report, error) {
	p.stats.waves.Add(1)
	args := binary.LittleEndian.AppendUint64(nil, id)
	replies := make([]*am.Reply, p.Size())
	for r := range p.Size() {
		if r == p.Rank() {
			continue
		}
		rep, err := p.e.CallAsync(ctx, r, p.ids.probe, args)
		if err != nil {
			return nil, &lostRank{rank: r, err: fmt.Errorf("task: wave to rank %d: %w", r, err)}
		}
		replies[r] = rep
	}
	w := make([]report, p.Size())
	w[p.Rank()] = p.probe(id)
	for r, rep := range replies {
		if rep == nil {
			continue
		}
		b, err := rep.Wait(ctx)
		if err == nil {
			w[r], err = decodeReport(b)
		}
		if err != nil {
			return nil, &lostRank{rank: r, err: fmt.Errorf("task: wave to rank %d: %w", r, err)}
		}
	}
	return w, nil
}

// decide sends the master's outcome to every other rank and returns it
// as this rank's Wait error once each has it (or is lost), so that when
// the master's Wait returns, every live rank's Wait is returning too and
// no rank closes while another still asks it about the group.
func (p *Pool) decide(id uint64, o outcome) error {
	args := appendOutcome(binary.LittleEndian.AppendUint64(nil, id), o)
	var replies []*am.Reply
	for r := range p.Size() {
		if r == p.Rank() {
			continue
		}
		if rep, err := p.e.CallAsync(p.ctx, r, p.ids.decided, args); err == nil {
			replies = append(replies, rep)
		}
	}
	for _, rep := range replies {
		rep.Wait(p.ctx) //nolint:errcheck // a rank lost now does not change the outcome
	}
	return o.err(id)
}

// lostOutcome turns a failed wave into the group's outcome.
func lostOutcome(err error) outcome {
	rank := -1
	var lost *lostRank
	if errors.As(err, &lost) {
		rank = lost.rank
	}
	return outcome{state: stateLost, rank: rank, text: err.Error()}
}

// lostRank names the rank a wave or poll could not reach.
type lostRank struct {
	rank int
	err  error
}

func (l *lostRank) Error() string { return l.err.Error() }
func (l *lostRank) Unwrap() error { return l.err }

// err is the error a Wait returns for o.
func (o outcome) err(id uint64) error {
	switch o.state {
	case stateDone:
		return nil
	case stateFailed:
		return fmt.Errorf("%w: group %d: %s", ErrTask, id, o.text)
	case stateLost:
		return fmt.Errorf("task: group %d cannot finish: %s: %w", id, o.text, comm.ErrPeerLost)
	case stateAbandoned:
		return fmt.Errorf("%w: group %d: %s", ErrAbandoned, id, o.text)
	}
	return fmt.Errorf("%w: group %d in state %d", ErrMalformed, id, o.state)
}

// stopped is the error of a wait cut short by ctx or by Close.
func (p *Pool) stopped(ctx context.Context) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return ErrClosed
}

// hint is the args of an idle hint about g: its ID and this rank's
// report, taken now.
func (p *Pool) hint(id []byte, g *group) []byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return appendReport(append([]byte(nil), id...), reportLocked(g))
}

// hintWave returns, once every other rank has sent an idle hint about g,
// their hints' reports with the master's own taken now: a wave that
// cost no message. Every report in it was taken before the next wave
// starts, which is all that terminated asks of the earlier of its two
// waves (docs/design/task.md), so a level whose ranks all hinted ends
// after one real wave instead of two. It returns nil while some rank has
// not hinted.
func (p *Pool) hintWave(g *group) []report {
	p.mu.Lock()
	defer p.mu.Unlock()
	if g.hints == nil {
		return nil
	}
	for r, ok := range g.hinted {
		if !ok && r != p.Rank() {
			return nil
		}
	}
	w := append([]report(nil), g.hints...)
	w[p.Rank()] = reportLocked(g)
	return w
}

// poll waits for the master's decision about g. Each time g's tasks
// here run out it tells the master, whose next wave may then go at once;
// from time to time it pings the master: a lost master fails the wait
// with comm.ErrPeerLost.
func (p *Pool) poll(ctx context.Context, g *group) error {
	id := binary.LittleEndian.AppendUint64(nil, g.id)
	t := time.NewTimer(pingInterval(0))
	defer t.Stop()
	for pings := 0; ; {
		select {
		case o := <-g.decided:
			return o.err(g.id)
		case <-g.idle:
			// A failed hint is a lost master, which the next ping reports.
			// Pushed, not left for am's flush age: the master waits for
			// it before its next wave.
			_ = p.e.Post(ctx, master, p.ids.idle, p.hint(id, g))
			p.e.Push()
			continue
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		case <-p.ctx.Done():
			return ErrClosed
		}
		if _, err := p.e.Call(ctx, master, p.ids.ping, nil); err != nil {
			if ctx.Err() != nil || p.ctx.Err() != nil {
				return p.stopped(ctx)
			}
			return fmt.Errorf("task: group %d: waiting for rank %d: %w", g.id, master, err)
		}
		pings++
		t.Reset(pingInterval(pings))
	}
}
