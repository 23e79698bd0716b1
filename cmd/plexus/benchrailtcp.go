package main

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"
)

// The tcp and tcppoll impls: one plain TCP connection on the fastest
// rail. tcp reads and writes it with Go's blocking calls, so that each
// message that arrives wakes its reader through the runtime's netpoller;
// tcppoll takes it out of the netpoller and reads it with a spin of
// non-blocking reads (benchrailpoll_linux.go), as a Link's polling Recv
// does. Neither is a rival to the rails (--impls only, not run by
// default): they say, in the same run, what a Go program gets from one
// link without and with polling, the floors the Links' small-message
// path is judged against.

// tcpCase is rank 0's side of a tcp or tcppoll case.
func (d *railDriver) tcpCase(ctx context.Context, cs railCase) (time.Duration, func(), error) {
	c, err := d.s.dial(ctx, d.s.rails[cs.Fast])
	if err != nil {
		return 0, nil, err
	}
	if cs.Impl == "tcppoll" {
		if c, err = newSpinConn(c); err != nil {
			return 0, nil, err
		}
	}
	comps, err := dialCompetitors(ctx, d.s, cs)
	if err != nil {
		c.Close()
		return 0, nil, err
	}
	closer := func() { c.Close(); closeAll(comps) }
	t, err := timeStream(ctx, c, cs, comps)
	return t, closer, err
}

// serveTCP is rank 1's side of a tcp or tcppoll case.
func serveTCP(ctx context.Context, s *railSession, cs railCase, got *int64) (func(), error) {
	c, err := s.accept(ctx, s.lns[cs.Fast])
	if err != nil {
		return nil, err
	}
	if cs.Impl == "tcppoll" {
		if c, err = newSpinConn(c); err != nil {
			return nil, err
		}
	}
	return serveStream(ctx, s, cs, c, got)
}

// serveStream accepts the case's competing flows, then receives the
// stream on c; the closer it returns closes c and the flows.
func serveStream(ctx context.Context, s *railSession, cs railCase, c net.Conn, got *int64) (func(), error) {
	comps, err := acceptCompetitors(ctx, s, cs)
	closer := func() { c.Close(); closeAll(comps) }
	if err != nil {
		return closer, err
	}
	return closer, recvStream(c, cs, got)
}

// railCases are the benches --cases may name.
var railCases = []string{"bandwidth", "latency"}

// parseCases checks --cases: a comma-separated subset of railCases.
func parseCases(s string) (map[string]bool, error) {
	out := map[string]bool{}
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		if !contains(railCases, f) {
			return nil, fmt.Errorf("--cases: unknown case %q, want some of %s", f, strings.Join(railCases, ","))
		}
		out[f] = true
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--cases %q: no case", s)
	}
	return out, nil
}

// railSizes are the sizes of the run, for --quick, with only the benches
// of --cases and --iters round trips per latency case where set.
func (o *benchRailOpts) railSizes() railSizes {
	z := newRailSizes(o.quick)
	cases, err := parseCases(o.cases)
	if err != nil { // checked by runBenchRail
		return z
	}
	if !cases["bandwidth"] {
		z.bw = nil
	}
	if !cases["latency"] {
		z.lat = nil
	}
	if o.iters > 0 {
		z.latIters = o.iters
	}
	return z
}
