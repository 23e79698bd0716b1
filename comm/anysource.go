package comm

import "errors"

// An AnySource receive or probe waits on every other rank, so a single
// loss leaves it waiting (another rank may still send), but once every
// other rank is lost nobody is left to send and it fails with ErrPeerLost
// (the last loss). dropPeer counts the losses (countLost); the last one
// stores its error in anyLost before it sweeps the posted AnySource
// receives, and a receive that waits looks at anyLost once posted, when
// its owner is about to sleep or tests it (Request.waiting), so that one
// posted during the sweep fails too (whichever takes it out of the table
// finishes it).

// countLost counts the loss of rank i with err and, if no other rank is
// left, fails the AnySource receives. Closing the world is no loss.
func (w *World) countLost(i int, err error) {
	if i == w.cfg.Rank || errors.Is(err, ErrClosed) {
		return
	}
	if int(w.nlost.Add(1)) < w.cfg.Size-1 {
		return
	}
	w.anyLost.Store(&err)
	for _, r := range w.table.RemoveSource(commWorld, AnySource) {
		r.fail(err)
	}
}

// anyErr returns why an AnySource operation cannot be satisfied, or nil.
func (w *World) anyErr() error {
	if w.closed.Load() {
		return ErrClosed
	}
	if err := w.anyLost.Load(); err != nil {
		return *err
	}
	return nil
}
