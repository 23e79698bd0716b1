package comm

import (
	"context"

	"github.com/plexus-hpc/plexus/transport/shm"
)

// SHM returns an opener of a shared-memory endpoint configured by cfg,
// whose Deliver and Lost are the world's. All ranks must run on this host.
func SHM(cfg shm.Config) Opener {
	return func(ev Events) (Transport, error) {
		cfg.Deliver = func(peer int, h shm.Header, payload []byte) {
			ev.Deliver(peer, fromSHM(h), payload)
		}
		cfg.Lost = ev.Lost
		ep, err := shm.Open(cfg)
		if err != nil {
			return nil, err
		}
		return shmTransport{ep}, nil
	}
}

// shmTransport adapts a shm.Endpoint to Transport. The endpoint's contract
// (ordered per sender goroutine and peer, payload free on return, serial
// Deliver per peer, Lost after the last Deliver) is the one Transport asks
// for.
type shmTransport struct{ ep *shm.Endpoint }

func (t shmTransport) Send(ctx context.Context, peer int, h Header, payload []byte) error {
	return t.ep.Send(ctx, peer, toSHM(h), payload)
}

func (t shmTransport) Poll(peer int) bool { return t.ep.Poll(peer) }

func (t shmTransport) PollDone(peer int) { t.ep.PollDone(peer) }

func (t shmTransport) Close() error { return t.ep.Close() }

// The frame kinds are numbered alike in both packages; shm_test.go checks it.
func toSHM(h Header) shm.Header {
	return shm.Header{Kind: shm.Kind(h.Kind), Flags: h.Flags, Comm: h.Comm,
		Source: h.Source, Tag: h.Tag, Seq: h.Seq, Aux: h.Length}
}

func fromSHM(h shm.Header) Header {
	return Header{Kind: Kind(h.Kind), Flags: h.Flags, Comm: h.Comm,
		Source: h.Source, Tag: h.Tag, Seq: h.Seq, Length: h.Aux}
}
