package main

import (
	"context"
	"fmt"
	"net"
)

// The competing flow of --compete: a bulk TCP connection on the fastest
// rail that writes as fast as the rail takes bytes from when a bandwidth
// case's timed messages begin until half of their bytes are through,
// the first half of that impl's own run. Each impl thus moves half of its
// bytes against the flow and half without it, whatever its speed; a flow
// of a fixed length would cover less of a slower impl's run, and so
// weigh least on the impls it slows most (docs/design/rails.md, "Under a
// competing flow").

// competitor is one running competing flow. stop may be called any
// number of times, from any goroutine.
type competitor struct{ p *flowProc }

// startCompeting has flow p's source begin writing, until stop, which
// ends it and closes p. A nil p gives a competitor whose stop does
// nothing, for a case without competition.
func startCompeting(p *flowProc) (*competitor, error) {
	if p != nil {
		if err := p.start(); err != nil {
			p.Close()
			return nil, fmt.Errorf("competing flow: starting it: %w", err)
		}
	}
	return &competitor{p: p}, nil
}

// stop ends the flow: its process at once, then rank 0's end.
func (k *competitor) stop() {
	if k != nil && k.p != nil {
		k.p.Close()
	}
}

// competeIf starts the case's competing flow if it has one: comps, from
// dialCompetitors, holds it, first.
func competeIf(comps []net.Conn) (*competitor, error) {
	if len(comps) == 0 {
		return startCompeting(nil)
	}
	return startCompeting(comps[0].(*flowProc))
}

// halfOf is how many of a case's n timed messages must be through before
// its competing flow stops: the first half of its bytes, rounded up.
func halfOf(n int) int { return (n + 1) / 2 }

// halfway counts a case's n messages through; step, called once for
// each, reports true for the one that completes the first half. Not safe
// for concurrent use.
type halfway struct{ n, through int }

func (h *halfway) step() bool {
	h.through++
	return h.through == halfOf(h.n)
}

// dialCompetitors opens rank 0's ends of the case's competing flows, on
// the fastest rail, each with its source process waiting to start.
func dialCompetitors(ctx context.Context, s *railSession, cs railCase) ([]net.Conn, error) {
	return openFlows(cs.Compete, false, func() (net.Conn, error) { return s.dial(ctx, s.rails[cs.Fast]) })
}

// acceptCompetitors accepts rank 1's ends of the competing flows, each
// with a sink process that reads and discards until rank 0 closes it.
func acceptCompetitors(ctx context.Context, s *railSession, cs railCase) ([]net.Conn, error) {
	return openFlows(cs.Compete, true, func() (net.Conn, error) { return s.accept(ctx, s.lns[cs.Fast]) })
}

// openFlows makes n ends of flows, each a connection from connect handed
// to its process; on a failure it closes those made.
func openFlows(n int, sink bool, connect func() (net.Conn, error)) ([]net.Conn, error) {
	var out []net.Conn
	for range n {
		c, err := connect()
		if err != nil {
			closeAll(out)
			return nil, fmt.Errorf("competing flow: %w", err)
		}
		p, err := newFlowProc(c, sink)
		if err != nil {
			c.Close()
			closeAll(out)
			return nil, err
		}
		out = append(out, p)
	}
	return out, nil
}
