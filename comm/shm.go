package comm

import (
	"sync/atomic"

	"github.com/plexus-hpc/plexus/transport/shm"
)

// openSHM returns an opener of a shared-memory endpoint configured by cfg,
// whose Deliver and Lost are the world's. All ranks must run on this host.
func openSHM(cfg shm.Config) opener {
	return func(ev events) (transport, error) {
		cfg.Deliver, cfg.DeliverRun, cfg.Lost, cfg.Idle = ev.Deliver, ev.DeliverRun, ev.Lost, ev.Idle
		cfg.DeliverEager = ev.DeliverEager
		ep, err := shm.Open(cfg)
		if err != nil {
			return nil, err
		}
		return shmSignaller{ep}, nil
	}
}

// A shm.Endpoint is a transport, poller and puller as it stands: it sends
// frame.Headers, and its contract (ordered per sender goroutine and peer,
// payload free on return, serial Deliver per peer, Lost after the last
// Deliver) is the one transport asks for.
var _ interface {
	transport
	poller
	untilPoller
	queuer
	eagerSender
	flusher
	signaller
	puller
	sleeper
} = shmSignaller{}

// shmSignaller is a shm.Endpoint as a signaller: every peer has
// shm.SignalSlots counters per direction.
type shmSignaller struct{ *shm.Endpoint }

func (shmSignaller) SignalSlots(peer int) int { return shm.SignalSlots }

func (s shmSignaller) SignalWord(peer, slot int) *atomic.Uint64 {
	w, err := s.Endpoint.SignalWord(peer, slot)
	if err != nil {
		return nil
	}
	return w
}

func (s shmSignaller) SignalTx(peer, slot int) (*atomic.Uint64, *atomic.Uint32) {
	count, asleep, err := s.Endpoint.SignalTx(peer, slot)
	if err != nil {
		return nil, nil
	}
	return count, asleep
}
