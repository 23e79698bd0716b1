package comm

import (
	"context"

	"github.com/plexus-hpc/plexus/transport/tcp"
)

// TCP returns an opener of a TCP endpoint configured by cfg, whose Deliver
// and Lost are the world's. The endpoint is reported to ready, if not nil,
// once it listens, so that the caller can publish its address.
func TCP(cfg tcp.Config, ready func(*tcp.Endpoint)) Opener {
	return func(ev Events) (Transport, error) {
		cfg.Deliver = func(peer int, h tcp.Header, payload []byte) {
			ev.Deliver(peer, fromTCP(h), payload)
		}
		cfg.Lost = ev.Lost
		ep, err := tcp.Listen(cfg)
		if err != nil {
			return nil, err
		}
		if ready != nil {
			ready(ep)
		}
		return tcpTransport{ep}, nil
	}
}

// tcpTransport adapts a tcp.Endpoint to Transport. The endpoint's own
// contract (ordered per sender goroutine and peer, payload free on return,
// serial Deliver per peer) is the one Transport asks for.
type tcpTransport struct{ ep *tcp.Endpoint }

func (t tcpTransport) Send(ctx context.Context, peer int, h Header, payload []byte) error {
	return t.ep.Send(ctx, peer, toTCP(h), payload)
}

func (t tcpTransport) Queue(ctx context.Context, peer int, h Header, payload []byte) error {
	return t.ep.Queue(ctx, peer, toTCP(h), payload)
}

func (t tcpTransport) Poll(peer int) bool { return t.ep.Poll(peer) }

func (t tcpTransport) PollDone(peer int) { t.ep.PollDone(peer) }

func (t tcpTransport) Close() error { return t.ep.Close() }

// The frame kinds are numbered alike in both packages; kinds_test.go
// checks it.
func toTCP(h Header) tcp.Header {
	return tcp.Header{Kind: tcp.Kind(h.Kind), Flags: h.Flags, Comm: h.Comm,
		Source: h.Source, Tag: h.Tag, Seq: h.Seq, Aux: h.Length}
}

func fromTCP(h tcp.Header) Header {
	return Header{Kind: Kind(h.Kind), Flags: h.Flags, Comm: h.Comm,
		Source: h.Source, Tag: h.Tag, Seq: h.Seq, Length: h.Aux}
}
