package shm

// Runs: the eager frames of one ring message (a bundle) with the same
// header but for their lengths are handed to Config.DeliverRun in one
// call, so that comm can match them in one step. startFrame gathers them
// (addToRun) and delivers them when the run ends (endRun); a lone frame,
// and any frame when DeliverRun is nil, goes to Deliver as before. Only
// the holder of Endpoint.rx touches e.runP.

// runOf is a run of eager frames of one ring message being gathered for
// DeliverRun: same header but for Aux, each frame's length.
type runOf struct {
	h Header
	n int // frames in e.runP
}

// addToRun adds a frame to the run, or delivers the run so far and starts
// again. The caller holds e.rx.
func (e *Endpoint) addToRun(p int, run *runOf, h Header, body []byte) {
	if e.cfg.DeliverRun == nil || h.Kind != Eager || h.Seq != 0 || h.Aux != uint64(len(body)) {
		e.endRun(p, run)
		e.cfg.Deliver(p, h, body)
		return
	}
	if run.n > 0 && (h.Comm != run.h.Comm || h.Tag != run.h.Tag || h.Flags != run.h.Flags) {
		e.endRun(p, run)
	}
	if run.n == 0 {
		run.h = h
		e.runP = e.runP[:0]
	}
	e.runP = append(e.runP, body)
	run.n++
}

// endRun delivers the frames gathered, one by one if there is only one.
// The caller holds e.rx.
func (e *Endpoint) endRun(p int, run *runOf) {
	switch run.n {
	case 0:
		return
	case 1:
		e.cfg.Deliver(p, run.h, e.runP[0])
	default:
		e.cfg.DeliverRun(p, run.h, e.runP)
	}
	clear(e.runP)
	run.n = 0
}
