package shm

import (
	"encoding/binary"

	"github.com/plexus-hpc/plexus/transport/frame"
)

// Runs: the eager frames of one ring message (a bundle) with the same
// header but for their lengths are handed to Config.DeliverRun in one
// call, so that comm can match them in one step. startFrame gathers them
// (addToRun) and delivers them when the run ends (endRun); a lone frame,
// and any frame when DeliverRun is nil, goes to Deliver as before. Only
// the holder of Endpoint.rx touches e.runP.

// shortEager reports whether msg starts with a whole eager frame with a
// short header, and its payload length; parseHeader reads every other
// frame (and reports what is wrong with a bad one).
func (e *Endpoint) shortEager(msg []byte) (total int, ok bool) {
	if len(msg) < shortSize || msg[0] != shortMark || frame.Kind(msg[1]) != frame.Eager {
		return 0, false
	}
	total = int(binary.LittleEndian.Uint32(msg[12:]))
	return total, total <= len(msg)-shortSize && total <= e.cfg.MaxPayload
}

// key is what the frames of a run share: a short eager header's fields
// but the length, read one by one (startFrame says why).
type key struct {
	flags byte
	comm  uint32
	tag   int32
}

// runKey reads the key of the short header f.
func runKey(f []byte) key {
	return key{flags: f[2], comm: binary.LittleEndian.Uint32(f[4:]), tag: int32(binary.LittleEndian.Uint32(f[8:]))}
}

// header is the Header of an eager frame with key k from p of n bytes.
func (k key) header(p, n int) frame.Header {
	return frame.Header{Kind: frame.Eager, Flags: k.flags, Comm: k.comm, Source: int32(p), Tag: k.tag, Aux: uint64(n)}
}

// deliverOne delivers one short eager frame with key k: through
// DeliverEager, without a Header, where it can.
func (e *Endpoint) deliverOne(p int, k key, body []byte) {
	if e.cfg.DeliverEager != nil && k.flags == 0 {
		e.cfg.DeliverEager(p, k.comm, k.tag, body)
		return
	}
	e.cfg.Deliver(p, k.header(p, len(body)), body)
}

// runOf is a run of short eager frames of one ring message being gathered
// for DeliverRun.
type runOf struct {
	k key
	n int // frames in e.runP
}

// addToRun adds a short eager frame with key k to the run, or delivers
// the run so far and starts again. The caller holds e.rx.
func (e *Endpoint) addToRun(p int, run *runOf, k key, body []byte) {
	if e.cfg.DeliverRun == nil {
		e.cfg.Deliver(p, k.header(p, len(body)), body)
		return
	}
	if run.n > 0 && k != run.k {
		e.endRun(p, run)
	}
	if run.n == 0 {
		run.k = k
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
		e.deliverOne(p, run.k, e.runP[0])
	default:
		e.cfg.DeliverRun(p, run.k.header(p, len(e.runP[0])), e.runP)
	}
	clear(e.runP)
	run.n = 0
}
