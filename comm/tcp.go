package comm

import "github.com/plexus-hpc/plexus/transport/tcp"

// openTCP returns an opener of a TCP endpoint configured by cfg, whose Deliver
// and Lost are the world's. The endpoint is reported to ready, if not nil,
// once it listens, so that the caller can publish its address.
func openTCP(cfg tcp.Config, ready func(*tcp.Endpoint)) opener {
	return func(ev events) (transport, error) {
		cfg.Deliver, cfg.Lost = ev.Deliver, ev.Lost
		ep, err := tcp.Listen(cfg)
		if err != nil {
			return nil, err
		}
		if ready != nil {
			ready(ep)
		}
		return ep, nil
	}
}

// A tcp.Endpoint is a transport, poller and queuer as it stands: it sends
// frame.Headers, and its contract (ordered per sender goroutine and peer,
// payload free on return, serial Deliver per peer) is the one transport
// asks for.
var _ interface {
	transport
	poller
	queuer
} = (*tcp.Endpoint)(nil)
