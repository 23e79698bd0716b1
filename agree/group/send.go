package group

import (
	"context"

	"github.com/plexus-hpc/plexus/agree"
)

// flush sends the node's messages, one frame per destination: the
// acceptor's accepts by one Broadcast, everything else direct (a message
// to All goes to each replica in turn). Then it applies the decisions.
func (r *Replica) flush(ctx context.Context) {
	if !r.node.HasReady() {
		return
	}
	r.prof.enter(phaseApply)
	rd := r.node.Ready()
	for _, m := range rd.Messages {
		switch {
		case m.Type == agree.Accept:
			r.bcast = append(r.bcast, m)
		case m.To == agree.All:
			for to := range r.out {
				if to != r.ID() {
					r.out[to] = append(r.out[to], m)
				}
			}
		case m.To >= 0 && m.To < len(r.out):
			r.out[m.To] = append(r.out[m.To], m)
		}
	}
	if len(r.bcast) > 0 {
		r.prof.enter(phaseBroadcast)
		r.broadcast(ctx, r.bcast)
		r.bcast = forget(r.bcast)
	}
	r.prof.enter(phaseSend)
	for to, ms := range r.out {
		if len(ms) > 0 {
			r.sendTo(ctx, to, ms)
			r.out[to] = forget(ms)
		}
	}
	r.prof.enter(phaseApply)
	if rd.Snapshot != nil {
		r.cfg.Restore(*rd.Snapshot)
	}
	for _, e := range rd.Decided {
		r.cfg.Apply(e)
	}
	r.compact()
}

// forget empties ms for reuse, dropping its references to values.
func forget(ms []agree.Message) []agree.Message {
	clear(ms)
	return ms[:0]
}

// broadcastBatch is the default of Config.BroadcastBatch: about 2 KiB of
// accepts of small values; frames a Net cannot carry are cut further.
const broadcastBatch = 64

func (r *Replica) broadcast(ctx context.Context, ms []agree.Message) {
	err := r.frames(frameTree, ms, r.cfg.BroadcastBatch, func(f []byte) error { return r.net.Broadcast(ctx, f) })
	if err != nil && ctx.Err() == nil {
		r.cfg.Log.Debug("group: broadcast failed", "replica", r.ID(), "err", err)
	}
}

// sendTo sends ms to replica to in frames a link carries, so that a
// burst (a tick's resent proposals, a catch-up request behind them)
// takes the link, in order, rather than one long frame to the
// replica's inbox, which drops what does not fit.
func (r *Replica) sendTo(ctx context.Context, to int, ms []agree.Message) {
	err := r.frames(frameDirect, ms, len(ms), func(f []byte) error { return r.net.Send(ctx, to, f) })
	if err != nil && ctx.Err() == nil {
		r.cfg.Log.Debug("group: send failed", "replica", r.ID(), "to", to, "err", err)
		r.node.Report(to)
	}
}

// frameLimit is the longest frame net carries, 0 for no limit.
func frameLimit(net Net) int {
	if fl, ok := net.(interface{ maxFrame() int }); ok {
		return fl.maxFrame()
	}
	return 0
}

// frames encodes ms in frames of at most batch messages, and of at most
// the Net's longest frame where it has one (a message longer than that
// goes alone), and hands each to send, in order. It returns the first
// error; a frame that fails does not stop the ones after it.
func (r *Replica) frames(kind byte, ms []agree.Message, batch int, send func([]byte) error) error {
	limit := r.limit
	var first error
	for len(ms) > 0 {
		k := min(len(ms), batch)
		f, err := encodeFrame(r.frame[:0], kind, r.ID(), ms[:k])
		for err == nil && limit > 0 && len(f) > limit && k > 1 {
			k /= 2 // long values, or many: fewer per frame
			f, err = encodeFrame(f[:0], kind, r.ID(), ms[:k])
		}
		if err == nil {
			r.frame = f
			err = send(f)
		}
		if first == nil {
			first = err
		}
		ms = ms[k:]
	}
	return first
}
